"""The remote provider route: every model that is not our own server goes
through litellm, and this module is the only one that talks to it.

litellm is imported once, lazily (it takes seconds and ~200 MB), quietly and
offline (its local price map, no debug banner); ``litellm_import_s`` keeps how
long that took, so a seat can pay it at setup rather than inside a timed call.
Beside the import sit the questions the sandbox asks litellm about a model:
which key variables it needs, how large its window is, whether it takes a
strict JSON schema or a JSON mode, what a call cost, and whether its provider caches only up
to explicit breakpoints (Anthropic's ``cache_control``).
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

_litellm: Any = None
litellm_import_s: float | None = None  # how long the one import took

# litellm's acompletion builds its coroutine in a worker thread; a call
# cancelled meanwhile (Ctrl-C, an aborted game) leaves that coroutine unawaited,
# and Python warns about it at shutdown. Nothing is lost: the call was
# cancelled on purpose, so only this one warning is silenced.
ORPHANED_CALL = r"coroutine '[\w.]*acompletion' was never awaited"

# Providers that cache only up to explicit breakpoints (Anthropic's models,
# also when served by Bedrock or Vertex); the others cache prefixes unasked.
CACHE_CONTROL_MARKERS = ("anthropic/", "claude")


def silence_orphaned_calls() -> None:
    # Idempotent: warnings replaces an identical filter instead of adding one.
    warnings.filterwarnings("ignore", message=ORPHANED_CALL, category=RuntimeWarning)


def litellm_module() -> Any:
    """Import litellm once, quietly and offline (local price map, no debug banner)."""
    global _litellm, litellm_import_s
    silence_orphaned_calls()
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_LOG", "ERROR")
        started = time.perf_counter()
        import litellm

        litellm.suppress_debug_info = True
        _litellm = litellm
        litellm_import_s = time.perf_counter() - started
    return _litellm


def missing_keys(model: str, api_base: str | None) -> list[str]:
    """The provider's standard key variables that are unset, as litellm's own
    table names them (empty when litellm cannot place the model: its first
    call will say so)."""
    try:
        found = litellm_module().validate_environment(model=model, api_base=api_base)
    except Exception:  # a model litellm cannot place
        return []
    if found.get("keys_in_environment"):
        return []
    missing = [str(k) for k in found.get("missing_keys") or []]
    # A base URL given in the game file stands in for the provider's *_API_BASE.
    return [k for k in missing if not (api_base and k.endswith("_BASE"))]


def context_window(model: str) -> int | None:
    """The model's input window from litellm's model table (None if unknown)."""
    try:
        info = litellm_module().get_model_info(model=model)
    except Exception:  # a model litellm does not know
        return None
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if window else None


def takes_json_schema(model: str) -> bool:
    """Whether litellm says the model accepts a strict ``json_schema`` format."""
    try:
        return bool(litellm_module().supports_response_schema(model=model))
    except Exception:  # unknown model: litellm raises instead of answering False
        return False


def takes_json_mode(model: str) -> bool:
    """Whether litellm knows the model and passes a ``response_format`` for it
    (a JSON mode, or for Anthropic its forced-tool translation). A model missing
    from litellm's table answers False: its provider's generic parameter list
    says nothing about the model (the prompt rung is the safe start)."""
    litellm = litellm_module()
    try:
        litellm.get_model_info(model=model)
        params = litellm.get_supported_openai_params(model=model) or []
    except Exception:  # a model litellm does not know
        return False
    return "response_format" in params


def takes_seed(model: str) -> bool:
    """Whether litellm lists ``seed`` among the model's supported parameters
    (OpenAI and most OpenAI-protocol providers do; Anthropic does not)."""
    try:
        supported = litellm_module().get_supported_openai_params(model=model) or []
    except Exception:  # a model litellm cannot place: send nothing it may refuse
        return False
    return "seed" in supported


def token_prices(model: str) -> tuple[float, float]:
    """US$ per prompt token and per answer token from litellm's price table
    ((0, 0) for a model it does not price), for cost estimates before a call."""
    try:
        info = litellm_module().get_model_info(model=model)
    except Exception:  # a model litellm does not know
        return 0.0, 0.0
    return float(info.get("input_cost_per_token") or 0), float(
        info.get("output_cost_per_token") or 0
    )


def call_cost(response: Any) -> float:
    """litellm's price for one answer; cached prompt tokens at the provider's
    cached rate (litellm reads them from the usage). 0.0 when it has no price."""
    try:
        return float(litellm_module().completion_cost(completion_response=response) or 0.0)
    except Exception:  # a model missing from litellm's price table: unknown, not fatal
        return 0.0


def needs_cache_control(model: str) -> bool:
    lowered = model.lower()
    return any(marker in lowered for marker in CACHE_CONTROL_MARKERS)


def with_cache_control(messages: list[dict[str, Any]], split: int) -> list[dict[str, Any]]:
    """Anthropic ``cache_control`` breakpoints: one after the system message
    (rules and role card, fixed for the game) and one at the end of the
    record in the first user message (``split`` characters; it only grows
    between a seat's decisions). The question after it is never cached."""
    out: list[dict[str, Any]] = []
    first_user = True
    for message in messages:
        content = str(message["content"])
        if message["role"] == "system":
            out.append({"role": "system", "content": [_cached_block(content)]})
        elif message["role"] == "user" and first_user and 0 < split < len(content):
            first_user = False
            blocks = [_cached_block(content[:split]), {"type": "text", "text": content[split:]}]
            out.append({"role": "user", "content": blocks})
        else:
            first_user = first_user and message["role"] != "user"
            out.append(dict(message))
    return out


def _cached_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
