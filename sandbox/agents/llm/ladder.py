"""The structured-output ladder (docs/config.md): which rung a call stands on.

``schema`` (a strict JSON schema), ``json`` (the provider's JSON or tool mode;
llama.cpp's JSON form for our own servers) and ``prompt`` (the schema only in
the prompt, the JSON read out of the text by ``parse``). The answer format
builds each rung from its *mode* (the settings' older names).
"""

from __future__ import annotations

from typing import Literal, cast

import sandbox.models.capabilities as capabilities
import sandbox.models.remote as remote
from sandbox.models.endpoints import Endpoint

StructuredMode = Literal["json_schema", "json_object", "none"]
# The ladder's rungs (capabilities.RUNGS) and the modes that build them; the
# settings' older names are the modes themselves.
MODE_OF_RUNG: dict[str, StructuredMode] = {
    "schema": "json_schema",
    "json": "json_object",
    "prompt": "none",
}
RUNG_OF_MODE: dict[str, capabilities.Rung] = {
    "json_schema": "schema",
    "json_object": "json",
    "none": "prompt",
}


def choose_rung(
    structured: str,
    endpoint: Endpoint,
    cap: capabilities.Rung | None = None,
    thinking: bool = False,
) -> capabilities.Rung:
    """The ladder's rung for this call. A forced one (``schema``, ``json``,
    ``prompt``, or the older ``json_schema``, ``json_object``, ``none``) is
    taken as given; ``auto``: the llama.cpp JSON form for local and fake models,
    else the highest rung the capability table (or litellm's model table) puts
    the model on. ``cap``: the highest rung the provider has not refused yet
    (a refused rung steps down, never fails the seat)."""
    if structured != "auto":
        rung = RUNG_OF_MODE.get(structured) or cast(capabilities.Rung, structured)
    elif endpoint.kind != "remote":
        rung = "json"
    else:
        rung = capabilities.best_rung(
            endpoint.model,
            remote.takes_json_schema(endpoint.model),
            remote.takes_json_mode(endpoint.model),
            thinking,
        )
    return rung if cap is None else capabilities.lower(rung, cap)
