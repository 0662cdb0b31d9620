"""One model call with exactly one retry layer, a per-model concurrency limit
and a record of every HTTP attempt.

Two routes (``Endpoint.route``): our own OpenAI-protocol servers (the fake
provider, the embedded local model) are called straight through the openai
SDK on the seat's pooled client (``pool.Lease``); every other model goes
through litellm, which translates for its provider. litellm costs seconds to
import and several milliseconds of CPU per call, so the direct route keeps a
fake or local game free of it; ``SANDBOX_LLM_ROUTE=litellm`` sends those
through litellm too (the bench compares both).

litellm itself, and what it knows of a model (price, cache breakpoints),
belong to ``remote``, the remote provider route; this module sends the call.
litellm's own retries and the openai SDK's are switched off (``max_retries=0``,
``num_retries=0``) so tenacity is the only layer; only transient errors are
retried, never bad-request, auth, missing-credential or context-window errors.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
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

import sandbox.models.remote as remote
from sandbox.models.endpoints import Endpoint
from sandbox.models.gate import call_slot
from sandbox.models.pool import Lease
from sandbox.models.secrets import redact_text

BACKOFF_MULTIPLIER_S = 0.5
FALLBACK_KEY = "no-key"  # our own servers ignore the key, but the SDK wants one


class ProviderFailure(Exception):
    """The provider gave no answer (after retries, or a non-retryable error).
    The message is already redacted; ``overflow``: the prompt did not fit the
    model's context window."""

    def __init__(self, message: str, overflow: bool = False) -> None:
        super().__init__(message)
        self.overflow = overflow


class MalformedResponse(Exception):
    """A 200 answer whose body is not the JSON it claims to be (retried)."""


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
    cache: bool = True  # ask providers that need it to cache the stable prefix
    # The decision's sampling seed (a what-if branch's, see LLMAgent.sample_with);
    # each HTTP attempt sends attempt_seed(seed, repair, attempt). None: no seed sent.
    seed: int | None = None


# One semaphore per (event loop, model): asyncio primitives belong to one loop.
_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def model_semaphore(model: str, limit: int) -> asyncio.Semaphore:
    """Shared by every seat using ``model`` on this loop (every game the loop
    plays); the first limit set wins."""
    per_loop = _limits.setdefault(asyncio.get_running_loop(), {})
    if model not in per_loop:
        per_loop[model] = asyncio.Semaphore(limit)
    return per_loop[model]


# Permanent whatever class wraps them: a missing key surfaces from the openai
# SDK as litellm's InternalServerError ("Missing credentials ...").
PERMANENT_STATUS = (401, 403)
PERMANENT_WORDS = (
    "missing credentials",
    "api_key client option must be set",
    "invalid api key",
    "incorrect api key",
)
# How providers (and llama.cpp's server) say a prompt is longer than the window.
OVERFLOW_WORDS = (
    "context length",
    "context window",
    "context size",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "context_length_exceeded",
)


def is_transient(err: BaseException) -> bool:
    """Worth retrying: a rate limit, timeout, connection or server error, but
    never an auth or missing-credential error (retrying cannot fix a key).
    litellm's exception classes subclass the openai SDK's, so one test covers
    both routes without importing litellm."""
    if is_permanent(err) or is_overflow(err):
        return False
    import openai

    transient = (
        openai.RateLimitError,
        openai.APITimeoutError,
        openai.APIConnectionError,
        openai.InternalServerError,
        MalformedResponse,
        asyncio.TimeoutError,
    )
    if isinstance(err, transient):
        return True
    status = getattr(err, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def is_permanent(err: BaseException) -> bool:
    import openai

    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
        return True
    if getattr(err, "status_code", None) in PERMANENT_STATUS:
        return True
    text = str(err).lower()
    return any(words in text for words in PERMANENT_WORDS)


def is_overflow(err: BaseException) -> bool:
    """The prompt does not fit the model's window (never retried as is)."""
    if type(err).__name__ == "ContextWindowExceededError":
        return True
    if getattr(err, "status_code", None) not in (400, 413):
        return False
    text = str(err).lower()
    return any(words in text for words in OVERFLOW_WORDS)


def is_provider_error(err: BaseException) -> bool:
    import openai

    return isinstance(err, openai.APIError | asyncio.TimeoutError | MalformedResponse)


class ModelClient:
    """Calls one endpoint; appends one record per HTTP attempt to ``calls``.

    ``http`` is the shared OpenAI-protocol client of the seat's lease (see
    ``pool``); without one, each ``complete`` opens a client and closes it.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        settings: CallSettings,
        retry: RetryPolicy,
        concurrency: int,
        secrets: Sequence[str],
        http: Any = None,
    ) -> None:
        self.endpoint = endpoint
        self.settings = settings
        self.retry = retry
        self.concurrency = concurrency
        self.secrets = list(secrets)
        self.http = http

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        calls: list[dict[str, Any]],
        cache_split: int | None = None,
    ) -> str:
        """The answer text. Raises ProviderFailure (redacted) when no answer came.
        ``cache_split``: where the stable part of the first user message ends
        (a cache breakpoint for providers that need one)."""
        if self.http is None and self.endpoint.route == "openai":
            lease = Lease(self.endpoint.api_base, self.endpoint.api_key or FALLBACK_KEY)
            self.http = lease.client()
            try:
                return await self._complete(messages, repair, calls, cache_split)
            finally:
                self.http = None
                await lease.release()
        return await self._complete(messages, repair, calls, cache_split)

    async def _complete(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        calls: list[dict[str, Any]],
        cache_split: int | None,
    ) -> str:
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
                    return await self._attempt(messages, repair, number, calls, cache_split)
        except Exception as err:
            if not is_provider_error(err):
                raise
            raise ProviderFailure(self.describe(err), overflow=is_overflow(err)) from None
        raise AssertionError("tenacity ended without an answer or an error")

    async def _attempt(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        attempt: int,
        calls: list[dict[str, Any]],
        cache_split: int | None,
    ) -> str:
        record = new_record(self.endpoint.model, messages, attempt, repair)
        seed = (
            None
            if self.settings.seed is None
            else attempt_seed(self.settings.seed, repair, attempt)
        )
        if seed is not None:
            record["seed"] = seed  # on the call line: which draw this answer was
        calls.append(record)
        # The process's own limit first, then the cluster-wide gate (no-op by default).
        async with (
            model_semaphore(self.endpoint.model, self.concurrency),
            call_slot(self.endpoint.model),
        ):
            started = time.perf_counter()
            try:
                response = await self._send(messages, cache_split, seed)
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
        record["cached_tokens"] = cached_tokens(usage)
        record["cost"] = self._cost(response)
        return text

    async def _send(
        self, messages: Sequence[Mapping[str, str]], cache_split: int | None, seed: int | None
    ) -> Any:
        """One HTTP request: straight through the openai SDK for our own
        OpenAI-protocol servers (fake, local), through litellm otherwise."""
        if self.endpoint.route == "openai":
            # The SDK's low-level post: the request body is sent as built, without
            # the typed-parameter transform (~10 ms of CPU per call for a long
            # prompt and schema), and the answer comes back as plain JSON.
            body = self._direct_body(messages)
            if seed is not None:  # our own servers (fake, llama-server) take one
                body["seed"] = seed
            try:
                answer = await self.http.post(
                    "/chat/completions",
                    cast_to=object,
                    body=body,
                    options={"timeout": self.settings.timeout_s},
                )
            except ValueError as err:  # a body that is not the JSON it claims to be
                raise MalformedResponse(str(err)[:200]) from None
            return as_response(answer)
        kwargs = self._kwargs(messages)
        if seed is not None and remote.takes_seed(self.endpoint.model):
            kwargs["seed"] = seed  # dropped for providers litellm says ignore it
        if (
            self.settings.cache
            and cache_split is not None
            and remote.needs_cache_control(self.endpoint.model)
        ):
            kwargs["messages"] = remote.with_cache_control(kwargs["messages"], cache_split)
        return await remote.litellm_module().acompletion(**kwargs)

    def _direct_body(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": self.endpoint.model.split("/", 1)[-1],  # "openai/<id>" → "<id>"
            "messages": list(messages),
        }
        optional = {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "response_format": dict(s.response_format) if s.response_format else None,
        }
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        return kwargs

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
            # A copy: the format is shared between calls (answer_format.py) and litellm
            # may rewrite it for its provider.
            "response_format": copy.deepcopy(dict(s.response_format))
            if s.response_format
            else None,
            # OpenAI-protocol models reuse the seat's pooled client (no sockets left behind).
            "client": self.http if self.endpoint.model.startswith("openai/") else None,
        }
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        return kwargs

    def _cost(self, response: Any) -> float:
        """litellm's price for the call; cached prompt tokens at the provider's
        cached rate (litellm reads them from the usage)."""
        return 0.0 if self.endpoint.free else remote.call_cost(response)

    def describe(self, err: BaseException) -> str:
        return redact_text(f"{type(err).__name__}: {err}", self.secrets)[:2000]


class _Answer:
    """Attribute access over a chat.completion JSON object (the shape litellm
    returns), read only where used."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        value = self._data.get(name)
        if isinstance(value, Mapping):
            return _Answer(value)
        if isinstance(value, list):
            return [_Answer(v) if isinstance(v, Mapping) else v for v in value]
        return value


def as_response(answer: Any) -> Any:
    """The direct route's JSON answer, readable like litellm's response."""
    if not isinstance(answer, Mapping) or not answer.get("choices"):
        raise MalformedResponse(f"not a chat completion: {str(answer)[:200]}")
    return _Answer(answer)


def cached_tokens(usage: Any) -> int:
    """Prompt tokens the provider read from its cache: OpenAI's
    ``prompt_tokens_details.cached_tokens`` (litellm fills it for every
    provider), or Anthropic's ``cache_read_input_tokens``."""
    details = getattr(usage, "prompt_tokens_details", None)
    if isinstance(details, Mapping):
        from_details = details.get("cached_tokens")
    else:
        from_details = getattr(details, "cached_tokens", None)
    from_anthropic = getattr(usage, "cache_read_input_tokens", None)
    return max(int(from_details or 0), int(from_anthropic or 0))


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
        "cached_tokens": 0,
        "cost": 0.0,
        "latency_ms": 0,
        "error": None,
    }


def attempt_seed(seed: int, repair: int, attempt: int) -> int:
    """The seed one HTTP attempt sends: the decision's seed mixed with its repair
    turn and attempt number, so no two calls of a decision share a draw;
    31 bits, which every provider that takes a seed accepts."""
    text = f"{seed}:{repair}:{attempt}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big") & 0x7FFFFFFF


def elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
