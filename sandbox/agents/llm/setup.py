"""What an LLM seat settles once, outside a decision: its retry policy, its
timeout, a settings error as one line, and the one-off costs paid at setup
(imports, template compilation). What depends on the model's provider (its
window, its concurrency cap) the provider answers (sandbox.models.providers)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

import sandbox.agents.llm.prompt as prompt
from sandbox.agents.llm.settings import DEFAULT_TIMEOUT_S, LLMSettings
from sandbox.core.variant import Variant
from sandbox.models.capabilities import default_timeout
from sandbox.models.client import RetryPolicy
from sandbox.models.endpoints import Endpoint


def retry_policy(settings: LLMSettings) -> RetryPolicy:
    return RetryPolicy(settings.retry_attempts, settings.retry_max_wait_s, settings.retry_total_s)


def one_error(err: ValidationError) -> str:
    """A settings error as one line: ``temperature: Input should be ... (got 9)``."""
    first = err.errors(include_url=False, include_context=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "settings"
    return f"{where}: {first['msg']} (got {first.get('input')!r})"


def warm_up(variant: Variant[Any, Any], language: str) -> None:
    """One-off costs paid at setup, not inside the first timed call: the
    openai SDK's import (about a second) and compiling the prompt templates."""
    import openai  # noqa: F401  (imported for its side effect: loaded once)

    prompt.precompile(variant, language)


def timeout_for(settings: LLMSettings, endpoint: Endpoint) -> float:
    """Seconds per HTTP attempt: the setting, else the capability table's
    (thinking models take minutes), else DEFAULT_TIMEOUT_S."""
    if settings.timeout_s is not None:
        return settings.timeout_s
    return default_timeout(endpoint.model) or DEFAULT_TIMEOUT_S


def optional_described(settings: LLMSettings) -> dict[str, Any]:
    """The settings the header names only when they are not the default, so
    the headers of games that used the defaults stay as they were: the shared
    record, a private note not asked for, the reasoning settings."""
    found = {
        "shared_record": True if settings.shared_record else None,
        "private_note": None if settings.private_note else False,
        "reasoning_effort": settings.reasoning_effort,
        "thinking_budget": settings.thinking_budget,
    }
    return {k: v for k, v in found.items() if v is not None}
