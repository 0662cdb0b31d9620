"""One model call with exactly one retry layer, a per-model concurrency limit
and a record of every HTTP attempt.

Two routes (``Endpoint.route``, as the seat's provider resolved it): our own
OpenAI-protocol servers (the fake provider, the embedded local model) are
called straight through the openai SDK on the seat's pooled client
(``pool.Lease``); every other model goes
through litellm, which translates for its provider. litellm costs seconds to
import and several milliseconds of CPU per call, so the direct route keeps a
fake or local game free of it; ``SANDBOX_LLM_ROUTE=litellm`` sends those
through litellm too (the bench compares both).

litellm itself, and what it knows of a model (price, cache breakpoints),
belong to ``remote``, the remote provider route; this module sends the call.
litellm's own retries and the openai SDK's are switched off (``max_retries=0``,
``num_retries=0``) so tenacity is the only layer; only transient errors are
retried, never bad-request, auth, missing-credential or context-window errors.

Before a call, the capability table (``capabilities``) drops or renames what the
model's family refuses; a 400 naming a parameter it still refuses is learned
and the call sent once more without it (each change is a warning the seat
records once). A 400 refusing ``response_format`` raises :class:`FormatRefused`
(the seat steps down the structured-output ladder). A 429's ``Retry-After`` is
honoured and holds every seat calling that provider off (``backoff``,
``gate.hold_off``); a quota exhausted for the day raises :class:`QuotaExhausted`,
which no seat turns into a fallback: the game stops, resumable, and the batch
stops starting games.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception

import sandbox.models.backoff as backoff
import sandbox.models.capabilities as capabilities
import sandbox.models.gate as gate
import sandbox.models.remote as remote
from sandbox.models.capabilities import NO_REASONING_SETTINGS, Learned, Reasoning
from sandbox.models.endpoints import Endpoint, Target
from sandbox.models.errors import (
    is_overflow,
    is_provider_error,
    is_transient,
)
from sandbox.models.gate import call_slot
from sandbox.models.pool import Lease
from sandbox.models.providers import Provider, provider_class
from sandbox.models.reading import (
    MalformedResponse,
    as_response,
    cached_tokens,
    reasoning_text,
    reasoning_tokens,
)
from sandbox.models.secrets import redact_text

BACKOFF_MULTIPLIER_S = 0.5
FALLBACK_KEY = "no-key"  # our own servers ignore the key, but the SDK wants one
REASONING_KEEP_CHARS = 20_000  # the provider's reasoning text kept on a call line
MAX_PARAM_DROPS = 4  # refused parameters learned within one call at most


class ProviderFailure(Exception):
    """The provider gave no answer (after retries, or a non-retryable error).
    The message is already redacted; ``overflow``: the prompt did not fit the
    model's context window."""

    def __init__(self, message: str, overflow: bool = False) -> None:
        super().__init__(message)
        self.overflow = overflow


class FormatRefused(ProviderFailure):
    """The provider refused the ``response_format`` of this rung (HTTP 400):
    the seat asks again one rung down the ladder."""


class QuotaExhausted(Exception):
    """The provider's daily or billing quota is spent: no retry helps. Not a
    ProviderFailure, so no seat turns it into a fallback: the game stops with a
    resumable transcript and the batch starts no more games. Redacted."""


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
    # Reasoning models and the structured-output rung (capabilities.py).
    reasoning: Reasoning = NO_REASONING_SETTINGS
    rung: str | None = None  # recorded as the call's "mode"
    # The decision's sampling seed (a what-if branch's, see LLMAgent.sample_with);
    # each HTTP attempt sends attempt_seed(seed, repair, attempt). None: no seed sent.
    seed: int | None = None
    # Request fields the server takes besides the OpenAI ones (llama.cpp's
    # "grammar" and "id_slot"): added to the body as they are.
    extra_body: Mapping[str, Any] | None = None
    # The embedded server's calls choose their slot through the slot router
    # (models/local/router.py): set by seats with the shared record, whose
    # prompts share prefixes across seats; SANDBOX_LOCAL_ROUTE=1 routes all.
    route_slots: bool = False


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


class ModelClient:
    """Calls one endpoint; appends one record per HTTP attempt to ``calls``.

    ``http`` is the shared OpenAI-protocol client of the seat's lease (see
    ``pool``); without one, each ``complete`` opens a client and closes it.
    ``provider``: the seat's (it answers the slot routing and the cost); by
    default one of the provider the endpoint names.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        settings: CallSettings,
        retry: RetryPolicy,
        concurrency: int,
        secrets: Sequence[str],
        http: Any = None,
        learned: Learned | None = None,
        provider: Provider | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.provider = provider or provider_class(endpoint.provider)(
            Target(endpoint.model, endpoint.api_base)
        )
        self.settings = settings
        self.retry = retry
        self.concurrency = concurrency
        self.secrets = list(secrets)
        self.http = http
        # What the seat learned its model refuses (kept by the seat across calls).
        self.learned = learned if learned is not None else Learned()
        self.held_as = backoff.provider_key(endpoint.model, endpoint.api_base)

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

        def attempt(number: int) -> Awaitable[str]:  # the call, as tenacity numbers its tries
            return self._attempt(messages, repair, number, calls, cache_split)

        if self.http is None and self.endpoint.route == "openai":
            lease = Lease(self.endpoint.api_base, self.endpoint.api_key or FALLBACK_KEY)
            self.http = lease.client()
            try:
                return await self._complete(attempt)
            finally:
                self.http = None
                await lease.release()
        return await self._complete(attempt)

    async def _complete(self, attempt: Callable[[int], Awaitable[str]]) -> str:
        """The call, tried again without each optional parameter the provider
        refuses (at most MAX_PARAM_DROPS of them); other errors redacted."""
        for _ in range(MAX_PARAM_DROPS + 1):
            try:
                return await self._retrying(attempt)
            except Exception as err:
                if backoff.is_quota(err):
                    raise QuotaExhausted(self.describe(err)) from None
                if not self._learn_refusal(err):
                    if not is_provider_error(err):
                        raise
                    raise ProviderFailure(self.describe(err), overflow=is_overflow(err)) from None
        raise ProviderFailure(f"the provider refused {MAX_PARAM_DROPS} parameters in turn")

    async def _retrying(self, attempt: Callable[[int], Awaitable[str]]) -> str:
        """One call with tenacity's retries of transient errors."""
        retrying = AsyncRetrying(
            stop=backoff.stop_rule(self.retry.attempts, self.retry.total_s),
            wait=backoff.retry_wait(
                BACKOFF_MULTIPLIER_S, self.retry.max_wait_s, self._hold_off, self.retry.total_s
            ),
            retry=retry_if_exception(is_transient),
            reraise=True,
        )
        async for tried in retrying:
            with tried:
                return await attempt(tried.retry_state.attempt_number)
        raise AssertionError("tenacity ended without an answer or an error")

    def _hold_off(self, seconds: float) -> None:
        gate.hold_off(self.held_as, seconds)

    def _learn_refusal(self, err: BaseException) -> bool:
        """A 400 refusing one optional parameter: learned, so the next try goes
        without it (True). A refused ``response_format`` is the ladder's business:
        FormatRefused. False: not a refusal, or one learned already."""
        sent = {**self._optional(), **self._params()[0]}  # as asked, and as sent
        refused = capabilities.refused_param(err, sent)
        if refused is None:
            return False
        param, rename = refused
        if param == capabilities.FORMAT:
            raise FormatRefused(self.describe(err)) from None
        return self.learned.refuse(param, rename)

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
        if self.settings.rung is not None:
            record["mode"] = self.settings.rung
        params, warnings = self._params()
        fresh = self.learned.fresh(warnings)
        if fresh:
            record["warnings"] = fresh
        # The process's own limit first, then the provider's hold-off (a 429's
        # Retry-After, for every seat), then the cluster-wide gate (no-op by default).
        async with model_semaphore(self.endpoint.model, self.concurrency):
            held = await gate.wait_turn(self.held_as)
            if held:
                record["held_ms"] = round(held * 1000)
            async with call_slot(self.endpoint.model):
                started = time.perf_counter()
                try:
                    response = await self._send(messages, cache_split, seed, params)
                except Exception as err:
                    record["latency_ms"] = elapsed_ms(started)
                    record["error"] = self.describe(err)
                    waited = backoff.describe_wait(err)
                    if waited:
                        record.update(waited)
                    raise
        record["latency_ms"] = elapsed_ms(started)
        message = response.choices[0].message
        text = str(message.content or "")
        record["raw"] = redact_text(text, self.secrets)
        usage = getattr(response, "usage", None)
        record["tokens_in"] = int(getattr(usage, "prompt_tokens", 0) or 0)
        record["tokens_out"] = int(getattr(usage, "completion_tokens", 0) or 0)
        record["cached_tokens"] = cached_tokens(usage)
        record["reasoning_tokens"] = reasoning_tokens(usage)
        thought = reasoning_text(message)
        if thought:
            # Referee-only, like the whole call line: never in a view or a prompt.
            record["reasoning"] = redact_text(thought, self.secrets)[:REASONING_KEEP_CHARS]
        record["cost"] = self._cost(response)
        return text

    def _optional(self) -> dict[str, Any]:
        """The optional request parameters as the seat asks for them."""
        s = self.settings
        return capabilities.asked_params(
            self.endpoint.model, s.temperature, s.max_tokens, s.response_format, s.reasoning
        )

    def _params(self) -> tuple[dict[str, Any], list[str]]:
        """The optional parameters as the model's family takes them, and the
        warnings for every change (capabilities.plan)."""
        return capabilities.plan(
            self.endpoint.model, self._optional(), self.settings.reasoning, self.learned
        )

    async def _send(
        self,
        messages: Sequence[Mapping[str, str]],
        cache_split: int | None,
        seed: int | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """One HTTP request: straight through the openai SDK for our own
        OpenAI-protocol servers (fake, local), through litellm otherwise."""
        params = self._params()[0] if params is None else params
        if self.endpoint.route == "openai":
            # The SDK's low-level post: the request body is sent as built, without
            # the typed-parameter transform (~10 ms of CPU per call for a long
            # prompt and schema), and the answer comes back as plain JSON.
            body = self._direct_body(messages, params)
            body.update(self.settings.extra_body or {})
            if seed is not None:  # our own servers (fake, llama-server) take one
                body["seed"] = seed
            router = self.provider.slot_router(self.endpoint, self.settings.route_slots)
            if router is not None:
                async with router.route(messages) as route:  # its slot (router.py)
                    body.update(id_slot=route.slot, cache_prompt=True)
                    return await self._post(body)
            return await self._post(body)
        kwargs = self._kwargs(messages, params)
        if self.settings.extra_body:
            kwargs["extra_body"] = dict(self.settings.extra_body)
        if seed is not None and remote.takes_seed(self.endpoint.model):
            kwargs["seed"] = seed  # dropped for providers litellm says ignore it
        if (
            self.settings.cache
            and cache_split is not None
            and self.provider.cache_breakpoints(self.endpoint)
        ):
            kwargs["messages"] = remote.with_cache_control(kwargs["messages"], cache_split)
        return await remote.litellm_module().acompletion(**kwargs)

    async def _post(self, body: dict[str, Any]) -> Any:
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

    def _direct_body(
        self, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.endpoint.model.split("/", 1)[-1],  # "openai/<id>" → "<id>"
            "messages": list(messages),
        }
        kwargs.update({k: dict(v) if isinstance(v, Mapping) else v for k, v in params.items()})
        return kwargs

    def _kwargs(
        self, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]
    ) -> dict[str, Any]:
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
            # OpenAI-protocol models reuse the seat's pooled client (no sockets left behind).
            "client": self.http if self.endpoint.model.startswith("openai/") else None,
        }
        kwargs.update({k: v for k, v in optional.items() if v is not None})
        # Copies: the format is shared between calls (answer_format.py) and litellm
        # may rewrite it for its provider.
        kwargs.update({k: copy.deepcopy(v) for k, v in params.items()})
        return kwargs

    def _cost(self, response: Any) -> float:
        """litellm's price for the call; cached prompt tokens at the provider's
        cached rate (litellm reads them from the usage)."""
        return self.provider.call_cost(response)

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
