"""One model call with exactly one retry layer, a per-model concurrency limit
and a record of every HTTP attempt.

litellm is imported on the first call only (it takes seconds to import). Its
own retries and the openai SDK's are switched off (``max_retries=0``,
``num_retries=0``) so tenacity is the only layer; only transient errors are
retried, never bad-request, auth, missing-credential or context-window errors.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_random_exponential,
)

from sandbox.agents.llm.endpoints import Endpoint
from sandbox.agents.llm.provider import litellm_module
from sandbox.agents.llm.secrets import redact_text
from sandbox.backends.gate import call_slot

TRANSIENT = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
)
BACKOFF_MULTIPLIER_S = 0.5

class ProviderFailure(Exception):
    """The provider gave no answer (after retries, or a non-retryable error).
    The message is already redacted."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int
    max_wait_s: float
    total_s: float


@dataclass(frozen=True)
class CallSettings:
    timeout_s: float
    temperature: float | None = None
    max_tokens: int | None = None
    response_format: Mapping[str, Any] | None = None


# One semaphore per (event loop, model): asyncio primitives belong to one loop.
_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def model_semaphore(model: str, limit: int) -> asyncio.Semaphore:
    """Shared by every seat using ``model`` in this process; the first limit set wins."""
    per_loop = _limits.setdefault(asyncio.get_running_loop(), {})
    if model not in per_loop:
        per_loop[model] = asyncio.Semaphore(limit)
    return per_loop[model]


# Permanent whatever class litellm wraps them in: a missing key surfaces from
# the openai SDK as litellm's InternalServerError ("Missing credentials ...").
PERMANENT_CLASSES = ("AuthenticationError", "PermissionDeniedError")
PERMANENT_STATUS = (401, 403)
PERMANENT_WORDS = ("missing credentials", "api_key client option must be set", "invalid api key",
                   "incorrect api key")


def is_transient(err: BaseException) -> bool:
    """Worth retrying: a rate limit, timeout, connection or server error, but
    never an auth or missing-credential error (retrying cannot fix a key)."""
    if is_permanent(err):
        return False
    lm = litellm_module()
    classes = tuple(getattr(lm, name) for name in TRANSIENT)
    return isinstance(err, (*classes, asyncio.TimeoutError))


def is_permanent(err: BaseException) -> bool:
    lm = litellm_module()
    classes = tuple(getattr(lm, name) for name in PERMANENT_CLASSES if hasattr(lm, name))
    if isinstance(err, classes):
        return True
    if getattr(err, "status_code", None) in PERMANENT_STATUS:
        return True
    text = str(err).lower()
    return any(words in text for words in PERMANENT_WORDS)


def is_provider_error(err: BaseException) -> bool:
    import openai

    return isinstance(err, openai.APIError | asyncio.TimeoutError)


class ModelClient:
    """Calls one endpoint; appends one record per HTTP attempt to ``calls``."""

    def __init__(
        self,
        endpoint: Endpoint,
        settings: CallSettings,
        retry: RetryPolicy,
        concurrency: int,
        secrets: Sequence[str],
    ) -> None:
        self.endpoint = endpoint
        self.settings = settings
        self.retry = retry
        self.concurrency = concurrency
        self.secrets = list(secrets)

    async def complete(
        self, messages: Sequence[Mapping[str, str]], repair: int, calls: list[dict[str, Any]]
    ) -> str:
        """The answer text. Raises ProviderFailure (redacted) when no answer came."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.retry.attempts) | stop_after_delay(self.retry.total_s),
            wait=wait_random_exponential(BACKOFF_MULTIPLIER_S, max=self.retry.max_wait_s),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    number = attempt.retry_state.attempt_number
                    return await self._attempt(messages, repair, number, calls)
        except Exception as err:
            if not is_provider_error(err):
                raise
            raise ProviderFailure(self.describe(err)) from None
        raise AssertionError("tenacity ended without an answer or an error")

    async def _attempt(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        attempt: int,
        calls: list[dict[str, Any]],
    ) -> str:
        record = new_record(self.endpoint.model, messages, attempt, repair)
        calls.append(record)
        # The process's own limit first, then the cluster-wide gate (no-op by default).
        async with (
            model_semaphore(self.endpoint.model, self.concurrency),
            call_slot(self.endpoint.model),
        ):
            started = time.perf_counter()
            try:
                response = await litellm_module().acompletion(**self._kwargs(messages))
            except Exception as err:
                record["latency_ms"] = elapsed_ms(started)
                record["error"] = self.describe(err)
                raise
        record["latency_ms"] = elapsed_ms(started)
        text = str(response.choices[0].message.content or "")
        record["raw"] = redact_text(text, self.secrets)
        usage = getattr(response, "usage", None)
        record["tokens_in"] = int(getattr(usage, "prompt_tokens", 0) or 0)
        record["tokens_out"] = int(getattr(usage, "completion_tokens", 0) or 0)
        record["cost"] = self._cost(response)
        return text

    def _kwargs(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": [dict(m) for m in messages],
            "timeout": s.timeout_s,
            "max_retries": 0,  # the openai SDK's own retries: off (one layer only)
            "num_retries": 0,  # litellm's retries: off
        }
        optional = {
            "api_base": self.endpoint.api_base,
            "api_key": self.endpoint.api_key,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "response_format": dict(s.response_format) if s.response_format else None,
        }
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        return kwargs

    def _cost(self, response: Any) -> float:
        if self.endpoint.free:
            return 0.0
        try:
            return float(litellm_module().completion_cost(completion_response=response) or 0.0)
        except Exception:  # a model missing from litellm's price table: unknown, not fatal
            return 0.0

    def describe(self, err: BaseException) -> str:
        return redact_text(f"{type(err).__name__}: {err}", self.secrets)[:2000]


def new_record(
    model: str, messages: Sequence[Mapping[str, str]], attempt: int, repair: int
) -> dict[str, Any]:
    return {
        "model": model,
        "attempt": attempt,
        "repair": repair,
        "messages": [dict(m) for m in messages],
        "raw": None,
        "parsed": None,
        "tokens_in": 0,
        "tokens_out": 0,
        "cost": 0.0,
        "latency_ms": 0,
        "error": None,
    }


def elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
