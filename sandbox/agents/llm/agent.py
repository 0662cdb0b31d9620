"""The ``llm`` seat: orchestrates one decision through the stages in order
(view, prompt, answer format, call, parse, record; see the package docstring),
repairs invalid answers in the same conversation, and records every call.

The prompt fits the model's context window (``context_window``, else what
the seat's provider says of its model): over it, the oldest history is
condensed by the referee's own summary (``prompt.budget.fit_record``). A
provider that still says the prompt is too long gets one more try with a
budget a quarter tighter, recorded as ``overflow_retry`` on the call.

Every answer goes through the referee's own check (``ctx.validate``) before it
is returned; one that stays invalid after ``max_repairs`` turns becomes the
documented fallback (FALLBACK_INVALID), and a provider that stays down becomes
FALLBACK_PROVIDER (the runner aborts a game with too many of those).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, cast

from pydantic import ValidationError

import sandbox.agents.llm.answer_format as answer_format
import sandbox.agents.llm.call_record as call_record
import sandbox.agents.llm.ladder as ladder
import sandbox.agents.llm.prompt as prompt
from sandbox.agents.llm.answer_format import AnswerFormat
from sandbox.agents.llm.beliefs import PROBE_DECISION, BeliefProbe, probe_for
from sandbox.agents.llm.parse import AnswerError, ParsedAnswer, parse_answer, render_repair
from sandbox.agents.llm.prompt import RenderedPrompt, shared_layout
from sandbox.agents.llm.prompt.budget import (
    after_overflow,
    prompt_budget,
    shared_room,
    token_ratio,
)
from sandbox.agents.llm.settings import LLMSettings, limits_for
from sandbox.agents.llm.setup import (
    one_error,
    optional_described,
    retry_policy,
    timeout_for,
    warm_up,
)
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import DecisionRequest, Text
from sandbox.core.rng import derived_seed
from sandbox.core.seat import (
    FALLBACK_INVALID,
    FALLBACK_PROVIDER,
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
    Seating,
)
from sandbox.models.capabilities import Learned, Reasoning
from sandbox.models.client import (
    CallSettings,
    FormatRefused,
    ModelClient,
    ProviderFailure,
)
from sandbox.models.endpoints import Endpoint, EndpointError, Target
from sandbox.models.providers import Provider, provider_for
from sandbox.models.secrets import redact, secret_values


class Completer(Protocol):
    """The call stage as a decision uses it (``ModelClient`` is one): the answer
    text of one conversation, appending one record per attempt to ``calls``;
    ProviderFailure when no answer came."""

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        calls: list[dict[str, Any]],
        cache_split: int | None = None,
    ) -> str: ...


# Compact style, questions without free text: a note of ~48 characters
# (~15 tokens), the value and the JSON around them fit with room to spare.
CHOICE_MAX_TOKENS = 64


class LLMAgent(Agent):
    """A seat played by a model, reached through its provider
    (``sandbox.models.providers``: litellm, the built-in fake provider, the
    embedded local model; ``provider`` gives another, e.g. inspect's model).

    ``LLMAgent("openai/gpt-4o", temperature=0.7, language="zh")``: the keyword
    arguments are :class:`LLMSettings` keys (on top of ``settings`` when given).
    Nothing is contacted until the first decision, but an unknown fake policy or an
    unset key variable is an :class:`AgentSetupError` here, before any game event.
    The seat never asks which provider it holds, only what the provider answers.
    """

    kind = "llm"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key_env: str | None = None,
        settings: LLMSettings | None = None,
        provider: Provider | None = None,
        **overrides: Any,
    ) -> None:
        self.target = Target(model, api_base, api_key_env)
        try:
            self.settings = (settings or LLMSettings()).override(overrides)
        except ValidationError as err:
            raise AgentSetupError(f"LLMAgent({model!r}): {one_error(err)}") from None
        try:
            self.provider = provider or provider_for(self.target)
            self.provider.check()  # e.g. an unknown fake policy, an unset key variable
        except EndpointError as err:
            raise AgentSetupError(str(err)) from None
        self._endpoint: Endpoint | None = None
        self._window: int | None = self.settings.context_window
        self._import_ms: int | None = None  # litellm's import, if this seat paid it
        self._learned_budget: int | None = None  # after an overflow: what fitted
        self._token_ratio = 1.0  # the provider's tokens per estimated token (budget.token_ratio)
        self._memo = prompt.RecordMemo()  # the seat's rendered record, extended per decision
        # What the model refused so far (parameters, ladder rungs) and the warnings
        # recorded: each is written once per seat, on the call where it first applied.
        self._learned = Learned()
        self._sampling_seed: int | None = None  # a what-if branch's (sample_with)

    def attach(self, seating: Seating) -> None:
        self.seat = seating.seat
        warm_up(seating.variant, self.settings.language)

    def sample_with(self, seed: int) -> None:
        """Send a sampling seed on every call (a what-if branch, sandbox.session.
        whatif): each decision's seed is drawn from ``seed`` (the seat's seed of
        the branch: game seed, branch seed and seat) and its request id; the
        client mixes in the repair turn and the attempt. Without it (a game played
        as usual) no seed is sent, as before."""
        self._sampling_seed = seed

    def _call_seed(self, request_id: str) -> int | None:
        if self._sampling_seed is None:
            return None
        return derived_seed(self._sampling_seed, "call", request_id) & 0x7FFFFFFF

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
        } | optional_described(self.settings)

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
        max_tokens = self.settings.max_tokens
        rendered = self._render(ctx, self._budget(max_tokens))
        fmt = self._format(ctx.request, probe, endpoint, rendered.own_fields)
        client = self._client(endpoint, fmt, secrets, max_tokens, ctx.request.id)
        calls: list[dict[str, Any]] = []
        messages = fmt.messages(rendered.messages, rendered.answer_chars)
        try:
            raw = await client.complete(messages, 0, calls, rendered.cache_chars)
        except ProviderFailure as failure:
            if isinstance(failure, FormatRefused):  # the next call goes one rung down
                self._step_down(fmt, calls)
            return cast(list[dict[str, Any]], redact(calls, secrets))  # the failure is recorded
        outcome: ParsedAnswer | Exception
        try:
            outcome = parse_answer(raw, fmt.decision, fmt.beliefs)
        except AnswerError as err:
            outcome = err  # recorded, never repaired: a probe is not worth a second call
        self._note_call(calls[-1], rendered, outcome, probe_only=True)
        return cast(list[dict[str, Any]], redact(calls, secrets))

    async def _resolve(self) -> Endpoint:
        if self._endpoint is None:
            endpoint = await self.provider.open()
            paid = self.provider.warm_up(endpoint)  # not inside the first timed call
            if paid is not None:
                self._import_ms = paid
            self._window = self._window or self.provider.context_window(endpoint)
            self._endpoint = endpoint
        return self._endpoint

    async def close(self) -> None:
        """Release what the provider holds for this seat (the shared HTTP
        client, the built-in fake server: the last seat to let go closes it)."""
        self._endpoint = None
        await self.provider.close()

    async def _converse(
        self, ctx: DecisionContext, endpoint: Endpoint, secrets: Sequence[str]
    ) -> AgentAnswer:
        # View: what the seat is asked about besides the decision.
        probe = self._probe(ctx)
        # Prompt: rendered within the budget the window leaves for it.
        max_tokens = self._max_tokens(ctx.request)
        budget = self._budget(max_tokens)
        rendered = self._render(ctx, budget)
        # Answer format: the schema to send, to check against, or to state in words.
        fmt = self._format(ctx.request, probe, endpoint, rendered.own_fields)
        messages = self._opening(fmt, rendered)
        client = self._client(endpoint, fmt, secrets, max_tokens, ctx.request.id)
        calls: list[dict[str, Any]] = []
        note = ""
        overflowed = False
        repair = 0
        while repair <= self.settings.max_repairs:
            # Call.
            try:
                raw = await client.complete(messages, repair, calls, rendered.cache_chars)
                if repair == 0:  # the prompt as rendered: calibrates later budgets
                    tokens_in = int(calls[-1].get("tokens_in") or 0)
                    self._token_ratio = token_ratio(self._token_ratio, tokens_in, rendered.tokens)
            except ProviderFailure as failure:
                if isinstance(failure, FormatRefused) and self._step_down(fmt, calls):
                    # The provider refused this rung's response_format: one rung down.
                    fmt = self._format(ctx.request, probe, endpoint, rendered.own_fields)
                    messages = [
                        *self._opening(fmt, rendered),
                        *messages[len(rendered.messages) :],
                    ]
                    client = self._client(endpoint, fmt, secrets, max_tokens, ctx.request.id)
                    continue
                if failure.overflow and repair == 0 and not overflowed:
                    # One more try, a quarter tighter than what did not fit (recorded).
                    overflowed = True
                    budget = after_overflow(budget, rendered.tokens)
                    self._learned_budget = budget  # later decisions start within it
                    rendered = self._render(ctx, budget)
                    messages = self._opening(fmt, rendered)
                    calls[-1]["overflow_retry"] = {"budget_tokens": budget}
                    continue
                return AgentAnswer(None, note, FALLBACK_PROVIDER, calls, repairs=repair)
            # Parse, then the referee's own check, always.
            try:
                parsed = parse_answer(raw, fmt.decision, fmt.beliefs)
                note = parsed.reasoning
                payload = ctx.validate(parsed.decision)
            except (AnswerError, IllegalDecision) as err:
                self._note_call(calls[-1], rendered, err)
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": render_repair(str(err), self._lang)},
                ]
                repair += 1
                continue
            self._note_call(calls[-1], rendered, parsed, payload)
            return AgentAnswer(payload, note, None, calls, repairs=repair)
        return AgentAnswer(None, note, FALLBACK_INVALID, calls, repairs=self.settings.max_repairs)

    def _opening(self, fmt: AnswerFormat, rendered: RenderedPrompt) -> list[dict[str, str]]:
        """The decision's opening messages as sent; the shared layout keeps
        their head for the seat's next step (``prompt.hold``)."""
        messages = fmt.messages(rendered.messages, rendered.answer_chars)
        prompt.hold(self._memo, rendered, messages)
        return messages

    def _note_call(
        self,
        record: dict[str, Any],
        rendered: RenderedPrompt,
        outcome: ParsedAnswer | Exception,
        payload: Any = None,
        probe_only: bool = False,
    ) -> None:
        """The record stage (``call_record``), once per call; litellm's import
        time goes on the first call after this seat paid it."""
        import_ms, self._import_ms = self._import_ms, None
        call_record.note_call(
            record, rendered, outcome,
            payload=payload, probe_only=probe_only, litellm_import_ms=import_ms,
        )  # fmt: skip

    def _step_down(self, fmt: AnswerFormat, calls: list[dict[str, Any]]) -> bool:
        """The provider refused ``fmt``'s rung: later calls go one rung down
        (recorded on the refused call). False at the bottom of the ladder."""
        below = self._learned.step_down(cast(Any, fmt.rung or "prompt"))
        if below is None:
            return False
        if calls:
            calls[-1]["format_retry"] = {"refused": fmt.rung, "next": below}
        return True

    def _budget(self, max_tokens: int | None) -> int | None:
        """Prompt tokens allowed (see ``prompt.budget.prompt_budget``)."""
        return prompt_budget(self._window, max_tokens, self._learned_budget, self._token_ratio)

    @property
    def _lang(self) -> str:
        return self.settings.language

    def _render(self, ctx: DecisionContext, budget: int | None) -> RenderedPrompt:
        """The prompt stage: this decision's two messages, within ``budget``."""
        return prompt.render_prompt(
            ctx.view,
            ctx.request,
            language=self._lang,
            rules_text=ctx.rules(self._lang),
            belief_probe=self.settings.belief_probe or ctx.request.decision == PROBE_DECISION,
            style=self.settings.prompt_style,
            history_items=self.settings.history_items,
            shared_record=self.settings.shared_record,
            budget_tokens=budget,
            memo=self._memo,
            shared_room=shared_room(self._window),
            note=self.settings.private_note,
        )

    def _format(
        self,
        request: DecisionRequest,
        probe: BeliefProbe | None,
        endpoint: Endpoint,
        own_fields: Sequence[str] = (),
    ) -> AnswerFormat:
        """The answer-format stage, in the form this endpoint takes: the
        ladder's rung from the settings, the capability table and what the
        provider refused so far."""
        rung = ladder.choose_rung(
            self.settings.structured,
            self.provider.best_rung(
                endpoint, thinking=bool(self.settings.thinking_budget) or self._reasoning.on
            ),
            self._learned.rung_cap,
        )
        return answer_format.for_decision(
            request,
            probe,
            limits_for(self.settings.prompt_style, self.settings.private_note),
            ladder.MODE_OF_RUNG[rung],
            self._lang,
            own_server=self.provider.own_server,
            takes_grammar=self.provider.takes_grammar(),
            max_tokens=self._max_tokens(request),
            shared=shared_layout(self.settings.prompt_style, self.settings.shared_record),
            own_fields=own_fields,
        )

    @property
    def _reasoning(self) -> Reasoning:
        return Reasoning(self.settings.reasoning_effort, self.settings.thinking_budget)

    def _client(
        self,
        endpoint: Endpoint,
        fmt: AnswerFormat,
        secrets: Sequence[str],
        max_tokens: int | None,
        request_id: str,
    ) -> Completer:
        settings = CallSettings(
            timeout_s=timeout_for(self.settings, endpoint),
            temperature=self.settings.temperature,
            max_tokens=max_tokens,
            response_format=fmt.response_format,
            cache=self.settings.cache,
            reasoning=self._reasoning,
            rung=fmt.rung,
            seed=self._call_seed(request_id),
            extra_body=self._extra_body(fmt),
            # the shared record's prompts share prefixes across seats: on the
            # embedded server the client picks the slot that holds the most of one
            route_slots=shared_layout(self.settings.prompt_style, self.settings.shared_record),
        )
        return ModelClient(
            endpoint,
            settings,
            retry_policy(self.settings),
            self.provider.concurrency(self.settings.concurrency),
            secrets,
            self.provider.http(),
            learned=self._learned,
            provider=self.provider,
        )

    def _extra_body(self, fmt: AnswerFormat) -> dict[str, Any] | None:
        """The format's own request fields (a grammar) and what the provider
        adds for this seat (the embedded server's pinned slot)."""
        extra = dict(fmt.extra_body or {})
        extra.update(self.provider.request_fields(getattr(self, "seat", None)))
        return extra or None

    def _max_tokens(self, request: DecisionRequest) -> int | None:
        """The answer budget for this decision: ``max_tokens`` as configured,
        but in the compact style a question without free text gets a smaller
        one (a choice needs a short note and a value, not a speech's budget)."""
        configured = self.settings.max_tokens
        if self.settings.prompt_style != "compact" or self.settings.belief_probe:
            return configured
        if self._reasoning.on:  # a reasoning model spends its limit thinking first
            return configured
        if any(isinstance(f, Text) for f in request.fields):
            return configured
        return CHOICE_MAX_TOKENS if configured is None else min(configured, CHOICE_MAX_TOKENS)

    def _probe(self, ctx: DecisionContext) -> BeliefProbe | None:
        """The belief probe for this view (the prompt derives the same one)."""
        return probe_for(ctx.view) if self.settings.belief_probe else None
