"""The structured-output ladder (docs/config.md): which rung a call stands on.

``schema`` (a strict JSON schema), ``json`` (the provider's JSON or tool mode;
llama.cpp's JSON form for our own servers) and ``prompt`` (the schema only in
the prompt, the JSON read out of the text by ``parse``). The answer format
builds each rung from its *mode* (the settings' older names).
"""

from __future__ import annotations

from typing import Literal, cast

import sandbox.models.capabilities as capabilities

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
    best: capabilities.Rung,
    cap: capabilities.Rung | None = None,
) -> capabilities.Rung:
    """The ladder's rung for this call. A forced one (``schema``, ``json``,
    ``prompt``, or the older ``json_schema``, ``json_object``, ``none``) is
    taken as given; ``auto``: ``best``, the highest rung the seat's provider
    says its model stands on (``Provider.best_rung``). ``cap``: the highest
    rung the provider has not refused yet (a refused rung steps down, never
    fails the seat)."""
    if structured != "auto":
        rung = RUNG_OF_MODE.get(structured) or cast(capabilities.Rung, structured)
    else:
        rung = best
    return rung if cap is None else capabilities.lower(rung, cap)
