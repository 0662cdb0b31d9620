"""The ``llm`` seat: renders the prompt, asks the model for a structured decision,
repairs invalid answers in the same conversation, and records every call.

The prompt fits the model's context window (``context_window``, else
litellm's model info): over it, the oldest history is condensed by the
referee's own summary (``prompting.fit_record``). A provider that still says
the prompt is too long gets one more try with a budget a quarter tighter,
recorded as ``overflow_retry`` on the call.

Every answer goes through the referee's own check (``ctx.validate``) before it
is returned; one that stays invalid after ``max_repairs`` turns becomes the
documented fallback (FALLBACK_INVALID), and a provider that stays down becomes
FALLBACK_PROVIDER (the runner aborts a game with too many of those).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from pydantic import ValidationError

import sandbox.agents.llm.prompting as prompting
import sandbox.agents.llm.wire as wire
import sandbox.models.endpoints as endpoints
import sandbox.models.remote as remote
from sandbox.agents.base import (
    FALLBACK_INVALID,
    FALLBACK_PROVIDER,
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
)
from sandbox.agents.llm.beliefs import PROBE_DECISION, BeliefProbe, probe_for
from sandbox.agents.llm.prompting import RenderedPrompt
from sandbox.agents.llm.schema import (
    AnswerError,
    AnswerLimits,
    ParsedAnswer,
    StructuredMode,
    beliefs_model,
    decision_model,
    limits_for,
    parse_answer,
)
from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import DecisionRequest, Text
from sandbox.models.client import (
    CallSettings,
    ModelClient,
    ProviderFailure,
    RetryPolicy,
)
from sandbox.models.endpoints import Endpoint, EndpointError
from sandbox.models.pool import Lease
from sandbox.models.secrets import redact, secret_values

# Compact style, questions without free text: a note of ~48 characters
# (~15 tokens), the value and the JSON around them fit with room to spare.
CHOICE_MAX_TOKENS = 64
# Kept free in the window for the answer when max_tokens is not set, and a
# margin for the token estimate (4 characters a token is not a tokenizer).
ANSWER_RESERVE_TOKENS = 1024
ESTIMATE_MARGIN = 0.9
OVERFLOW_SHRINK = 0.75  # the retry after an overflow: a budget a quarter smaller


class LLMAgent(Agent):
    """A seat played by a model through litellm (or the built-in fake provider, or
    the embedded local model).

    ``LLMAgent("openai/gpt-4o", temperature=0.7, language="zh")``: the keyword
    arguments are :class:`LLMSettings` keys (on top of ``settings`` when given).
    Nothing is contacted until the first decision, but an unknown fake policy or an
    unset key variable is an :class:`AgentSetupError` here, before any game event.
    """

    kind = "llm"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key_env: str | None = None,
        settings: LLMSettings | None = None,
        **overrides: Any,
    ) -> None:
        self.target = endpoints.Target(model, api_base, api_key_env)
        try:
            self.settings = (settings or LLMSettings()).override(overrides)
        except ValidationError as err:
            raise AgentSetupError(f"LLMAgent({model!r}): {one_error(err)}") from None
        try:
            endpoints.check_fake_policy(self.target)
            endpoints.check_local(self.target)
            endpoints.check_key(self.target)
        except EndpointError as err:
            raise AgentSetupError(str(err)) from None
        self._endpoint: Endpoint | None = None
        self._holds_fake = False
        self._lease: Lease | None = None
        self._window: int | None = self.settings.context_window
        self._import_ms: int | None = None  # litellm's import, if this seat paid it
        self._learned_budget: int | None = None  # after an overflow: what fitted
        self._record = prompting.RecordMemo()

    def attach(self, seat: int, game_seed: int, variant: str) -> None:
        self.seat = seat
        warm_up(variant, self.settings.language)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.target.model,
            "structured": self.settings.structured,
            "language": self.settings.language,
            "max_repairs": self.settings.max_repairs,
            "belief_probe": self.settings.belief_probe,
            "probe_after_speech": self.settings.probe_after_speech,
            "prompt_style": self.settings.prompt_style,
            "history_items": self.settings.history_items,
            "context_window": self.settings.context_window,
            "cache": self.settings.cache,
        }

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        secrets = secret_values([self._endpoint.api_key if self._endpoint else None])
        try:
            endpoint = await self._resolve()
        except EndpointError as err:
            record = {"model": self.target.model, "error": f"EndpointError: {err}"}
            return AgentAnswer(
                None, fallback_reason=FALLBACK_PROVIDER, calls=redact([record], secrets)
            )
        secrets = secret_values([endpoint.api_key])
        answer = await self._converse(ctx, endpoint, secrets)
        answer.calls = cast(list[dict[str, Any]], redact(answer.calls, secrets))
        answer.note = cast(str, redact(answer.note, secrets))
        return answer

    @property
    def probes_after_speech(self) -> bool:
        """Whether the runner asks this seat a probe-only call after each speech."""
        return self.settings.probe_after_speech

    async def probe(self, ctx: DecisionContext) -> list[dict[str, Any]]:
        """A probe-only call (``probe_after_speech``): ``ctx.request`` is
        ``beliefs.probe_request`` (no field), so the answer is only the private
        reasoning and beliefs. Nothing goes to the referee. Returns the call
        records (none when no seat is left to ask about); an invalid answer is
        recorded with ``error`` and ``beliefs_error`` and never repaired (a
        probe is not worth a second call)."""
        probe = probe_for(ctx.view)
        if probe is None:
            return []
        try:
            endpoint = await self._resolve()
        except EndpointError as err:
            record = {"model": self.target.model, "error": f"EndpointError: {err}"}
            return cast(list[dict[str, Any]], redact([record], secret_values([])))
        secrets = secret_values([endpoint.api_key])
        limits = limits_for(self.settings.prompt_style)
        decision = decision_model(ctx.request, None, limits)
        mode = choose_mode(self.settings.structured, endpoint)
        max_tokens = self.settings.max_tokens
        answer_format = wire.response_format(ctx.request, probe, limits, mode)
        client = self._client(endpoint, answer_format, secrets, max_tokens)
        hint = self._hint(ctx.request, probe, limits, mode)
        rendered, messages = self._first_messages(ctx, hint, self._budget(max_tokens))
        calls: list[dict[str, Any]] = []
        try:
            raw = await client.complete(messages, 0, calls, rendered.cache_chars)
        except ProviderFailure:
            return cast(list[dict[str, Any]], redact(calls, secrets))  # the failure is recorded
        self._annotate(calls[-1], rendered)
        try:
            record_beliefs(calls[-1], parse_answer(raw, decision, beliefs_model(probe)))
        except AnswerError as err:
            calls[-1]["error"] = calls[-1]["beliefs_error"] = f"invalid: {err}"
        return cast(list[dict[str, Any]], redact(calls, secrets))

    async def _resolve(self) -> Endpoint:
        if self._endpoint is None:
            if endpoints.uses_builtin_fake(self.target) and not self._holds_fake:
                endpoints.acquire_builtin_fake()
                self._holds_fake = True
            endpoint = await endpoints.resolve(self.target)
            if endpoint.route == "openai" or endpoint.model.startswith("openai/"):
                key = endpoint.api_key
                self._lease = Lease(endpoint.api_base, key) if key else None
            if endpoint.route == "litellm":
                self._warm_litellm()
            self._window = self._window or model_window(endpoint)
            self._endpoint = endpoint
        return self._endpoint

    def _warm_litellm(self) -> None:
        """Import litellm now, not inside the first timed call (seconds)."""
        if remote.litellm_import_s is None:
            remote.litellm_module()
            self._import_ms = round((remote.litellm_import_s or 0.0) * 1000)

    async def close(self) -> None:
        """Release the shared HTTP client and the built-in fake server (the
        last seat to let go of either closes it)."""
        self._endpoint = None
        if self._lease is not None:
            lease, self._lease = self._lease, None
            await lease.release()
        if self._holds_fake:
            self._holds_fake = False
            endpoints.release_builtin_fake()

    def _hint(
        self,
        request: DecisionRequest,
        probe: BeliefProbe | None,
        limits: AnswerLimits,
        mode: StructuredMode,
    ) -> str:
        """The answer format spelled out in the prompt, for endpoints that
        cannot constrain the answer themselves (mode "none")."""
        if mode != "none":
            return ""
        return wire.schema_instructions(request, probe, limits, self._lang)

    async def _converse(
        self, ctx: DecisionContext, endpoint: Endpoint, secrets: Sequence[str]
    ) -> AgentAnswer:
        limits = limits_for(self.settings.prompt_style)
        probe = self._probe(ctx)
        # What the answer is checked against (the wire form is wire.py's, composed).
        decision = decision_model(ctx.request, None, limits)
        beliefs = beliefs_model(probe) if probe is not None else None
        mode = choose_mode(self.settings.structured, endpoint)
        max_tokens = self._max_tokens(ctx.request)
        answer_format = wire.response_format(ctx.request, probe, limits, mode)
        client = self._client(endpoint, answer_format, secrets, max_tokens)
        budget = self._budget(max_tokens)
        hint = self._hint(ctx.request, probe, limits, mode)
        rendered, messages = self._first_messages(ctx, hint, budget)
        calls: list[dict[str, Any]] = []
        note = ""
        overflowed = False
        repair = 0
        while repair <= self.settings.max_repairs:
            try:
                raw = await client.complete(messages, repair, calls, rendered.cache_chars)
            except ProviderFailure as failure:
                if failure.overflow and repair == 0 and not overflowed:
                    # One more try, a quarter tighter than what did not fit (recorded).
                    overflowed = True
                    budget = int(min(budget or rendered.tokens, rendered.tokens) * OVERFLOW_SHRINK)
                    self._learned_budget = budget  # later decisions start within it
                    rendered, messages = self._first_messages(ctx, hint, budget)
                    calls[-1]["overflow_retry"] = {"budget_tokens": budget}
                    continue
                return AgentAnswer(None, note, FALLBACK_PROVIDER, calls, repairs=repair)
            self._annotate(calls[-1], rendered)
            try:
                parsed = parse_answer(raw, decision, beliefs)
                note = parsed.reasoning
                payload = ctx.validate(parsed.decision)  # always the referee's check
            except (AnswerError, IllegalDecision) as err:
                calls[-1]["error"] = f"invalid: {err}"
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": prompting.render_repair(str(err), self._lang)},
                ]
                repair += 1
                continue
            calls[-1]["parsed"] = payload
            record_beliefs(calls[-1], parsed)
            return AgentAnswer(payload, note, None, calls, repairs=repair)
        return AgentAnswer(None, note, FALLBACK_INVALID, calls, repairs=self.settings.max_repairs)

    def _annotate(self, record: dict[str, Any], rendered: RenderedPrompt) -> None:
        """What a study of caching and budgets needs, on the call record."""
        # How much of the prompt is the stable, cacheable prefix.
        record["prefix_chars"] = rendered.prefix_chars
        # System text and record: what the seat's next prompt starts with.
        record["stable_chars"] = rendered.prefix_chars + rendered.cache_chars
        if rendered.summarized:
            record["summarized"] = rendered.summarized
        if self._import_ms is not None:
            record["litellm_import_ms"], self._import_ms = self._import_ms, None

    def _budget(self, max_tokens: int | None) -> int | None:
        """Prompt tokens allowed: the window less the answer, with a margin
        for the estimate, and no more than what fitted after an overflow;
        None when neither is known."""
        budgets = [self._learned_budget] if self._learned_budget is not None else []
        if self._window is not None:
            reserve = max_tokens or ANSWER_RESERVE_TOKENS
            budgets.append(max(256, int((self._window - reserve) * ESTIMATE_MARGIN)))
        return min(budgets, default=None)

    @property
    def _lang(self) -> str:
        return self.settings.language

    def _first_messages(
        self, ctx: DecisionContext, schema_hint: str, budget: int | None,
    ) -> tuple[RenderedPrompt, list[dict[str, str]]]:
        """The rendered prompt and the opening conversation (``schema_hint``:
        the schema in words, for a model that nothing else constrains)."""
        rendered = prompting.render_prompt(
            ctx.view,
            ctx.request,
            language=self._lang,
            rules_text=ctx.rules(self._lang),
            belief_probe=self.settings.belief_probe or ctx.request.decision == PROBE_DECISION,
            style=self.settings.prompt_style,
            history_items=self.settings.history_items,
            budget_tokens=budget,
            memo=self._record,
        )
        messages = [dict(m) for m in rendered.messages]
        if schema_hint:
            # Nothing constrains the output: the schema goes into the question.
            last = messages[-1]
            last["content"] = last["content"] + schema_hint
        return rendered, messages

    def _client(
        self,
        endpoint: Endpoint,
        answer_format: dict[str, Any] | None,
        secrets: Sequence[str],
        max_tokens: int | None,
    ) -> ModelClient:
        settings = CallSettings(
            timeout_s=self.settings.timeout_s,
            temperature=self.settings.temperature,
            max_tokens=max_tokens,
            response_format=answer_format,
            cache=self.settings.cache,
        )
        return ModelClient(
            endpoint,
            settings,
            retry_policy(self.settings),
            concurrency_for(endpoint, self.settings),
            secrets,
            self._lease.client() if self._lease is not None else None,
        )

    def _max_tokens(self, request: DecisionRequest) -> int | None:
        """The answer budget for this decision: ``max_tokens`` as configured,
        but in the compact style a question without free text gets a smaller
        one (a choice needs a short note and a value, not a speech's budget)."""
        configured = self.settings.max_tokens
        if self.settings.prompt_style != "compact" or self.settings.belief_probe:
            return configured
        if any(isinstance(f, Text) for f in request.fields):
            return configured
        return CHOICE_MAX_TOKENS if configured is None else min(configured, CHOICE_MAX_TOKENS)

    def _probe(self, ctx: DecisionContext) -> BeliefProbe | None:
        """The belief probe for this view (the prompt derives the same one)."""
        return probe_for(ctx.view) if self.settings.belief_probe else None


def record_beliefs(record: dict[str, Any], parsed: ParsedAnswer) -> None:
    """Beliefs are private, for study (referee-only); a dropped object leaves
    its reason instead (never a repair: the probe is not part of the decision)."""
    if parsed.beliefs is not None:
        record["beliefs"] = parsed.beliefs
    if parsed.beliefs_error is not None:
        record["beliefs_error"] = parsed.beliefs_error


def retry_policy(settings: LLMSettings) -> RetryPolicy:
    return RetryPolicy(settings.retry_attempts, settings.retry_max_wait_s, settings.retry_total_s)


def one_error(err: ValidationError) -> str:
    """A settings error as one line: ``temperature: Input should be ... (got 9)``."""
    first = err.errors(include_url=False, include_context=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "settings"
    return f"{where}: {first['msg']} (got {first.get('input')!r})"


def concurrency_for(endpoint: Endpoint, settings: LLMSettings) -> int:
    """The configured limit, never above what the local server can serve at once."""
    if endpoint.kind != "local":
        return settings.concurrency
    from sandbox.models.local import RECOMMENDED_CONCURRENCY

    return min(settings.concurrency, RECOMMENDED_CONCURRENCY)


def model_window(endpoint: Endpoint) -> int | None:
    """The model's input window: the embedded server's ``n_ctx``, none for the
    fake (unless configured), else litellm's model table (None if unknown)."""
    if endpoint.kind == "fake":
        return None
    if endpoint.kind == "local":
        from sandbox.models.local import ServerSettings

        return ServerSettings.from_env().n_ctx
    return remote.context_window(endpoint.model)


def choose_mode(structured: str, endpoint: Endpoint) -> StructuredMode:
    """'auto': strict json_schema when litellm says the model takes it; the llama.cpp
    form for local and fake models; otherwise the schema in the prompt only."""
    if structured != "auto":
        return cast(StructuredMode, structured)
    if endpoint.kind != "remote":
        return "json_object"
    return "json_schema" if remote.takes_json_schema(endpoint.model) else "none"


def warm_up(variant: str, language: str) -> None:
    """One-off costs paid at setup, not inside the first timed call: the
    openai SDK's import (about a second) and compiling the prompt templates."""
    import openai  # noqa: F401  (imported for its side effect: loaded once)

    prompting.precompile(variant, language)
