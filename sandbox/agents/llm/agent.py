"""The ``llm`` seat: renders the prompt, asks the model for a structured decision,
repairs invalid answers in the same conversation, and records every call.

Every answer goes through the referee's own check (``ctx.validate``) before it
is returned; one that stays invalid after ``max_repairs`` turns becomes the
documented fallback (FALLBACK_INVALID), and a provider that stays down becomes
FALLBACK_PROVIDER (the runner aborts a game with too many of those).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from pydantic import BaseModel, ValidationError

import sandbox.agents.llm.endpoints as endpoints
import sandbox.agents.llm.prompting as prompting
from sandbox.agents.base import (
    FALLBACK_INVALID,
    FALLBACK_PROVIDER,
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
)
from sandbox.agents.llm.beliefs import BeliefProbe, probe_for
from sandbox.agents.llm.client import CallSettings, ModelClient, ProviderFailure, RetryPolicy
from sandbox.agents.llm.endpoints import Endpoint, EndpointError
from sandbox.agents.llm.schema import (
    AnswerError,
    ParsedAnswer,
    StructuredMode,
    answer_models,
    limits_for,
    parse_answer,
    response_format,
    schema_instructions,
)
from sandbox.agents.llm.secrets import redact, secret_values
from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import DecisionRequest, Text

# Compact style, questions without free text: a note of ~48 characters
# (~15 tokens), the value and the JSON around them fit with room to spare.
CHOICE_MAX_TOKENS = 64


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

    def attach(self, seat: int, game_seed: int, variant: str) -> None:
        self.seat = seat

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.target.model,
            "structured": self.settings.structured,
            "language": self.settings.language,
            "max_repairs": self.settings.max_repairs,
            "belief_probe": self.settings.belief_probe,
            "prompt_style": self.settings.prompt_style,
            "history_items": self.settings.history_items,
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

    async def _resolve(self) -> Endpoint:
        if self._endpoint is None:
            if endpoints.uses_builtin_fake(self.target) and not self._holds_fake:
                endpoints.acquire_builtin_fake()
                self._holds_fake = True
            self._endpoint = await endpoints.resolve(self.target)
        return self._endpoint

    async def close(self) -> None:
        """Release the built-in fake server (the last seat to close stops it)."""
        self._endpoint = None
        if self._holds_fake:
            self._holds_fake = False
            endpoints.release_builtin_fake()

    async def _converse(
        self, ctx: DecisionContext, endpoint: Endpoint, secrets: Sequence[str]
    ) -> AgentAnswer:
        limits = limits_for(self.settings.prompt_style)
        models = answer_models(ctx.request, self._probe(ctx), limits)
        mode = choose_mode(self.settings.structured, endpoint)
        client = self._client(endpoint, models.wire, mode, secrets, self._max_tokens(ctx.request))
        messages, prefix_chars = self._first_messages(ctx, models.wire, mode)
        calls: list[dict[str, Any]] = []
        note = ""
        for repair in range(self.settings.max_repairs + 1):
            try:
                raw = await client.complete(messages, repair, calls)
            except ProviderFailure:
                return AgentAnswer(None, note, FALLBACK_PROVIDER, calls, repairs=repair)
            # How much of the prompt is the stable, cacheable prefix (for studies).
            calls[-1]["prefix_chars"] = prefix_chars
            try:
                parsed = parse_answer(raw, models.decision, models.beliefs)
                note = parsed.reasoning
                payload = ctx.validate(parsed.decision)  # always the referee's check
            except (AnswerError, IllegalDecision) as err:
                calls[-1]["error"] = f"invalid: {err}"
                messages = [
                    *messages,
                    {"role": "assistant", "content": raw},
                    {"role": "user", "content": prompting.render_repair(str(err), self._lang)},
                ]
                continue
            calls[-1]["parsed"] = payload
            record_beliefs(calls[-1], parsed)
            return AgentAnswer(payload, note, None, calls, repairs=repair)
        return AgentAnswer(None, note, FALLBACK_INVALID, calls, repairs=self.settings.max_repairs)

    @property
    def _lang(self) -> str:
        return self.settings.language

    def _first_messages(
        self, ctx: DecisionContext, model: type[BaseModel], mode: StructuredMode
    ) -> tuple[list[dict[str, str]], int]:
        """The opening conversation and the length of its stable prefix."""
        rendered = prompting.render_prompt(
            ctx.view,
            ctx.request,
            language=self._lang,
            rules_text=ctx.rules(self._lang),
            belief_probe=self.settings.belief_probe,
            style=self.settings.prompt_style,
            history_items=self.settings.history_items,
        )
        messages = [dict(m) for m in rendered.messages]
        if mode == "none":
            # Nothing constrains the output: the schema goes into the question.
            last = messages[-1]
            last["content"] = last["content"] + schema_instructions(model, self._lang)
        return messages, rendered.prefix_chars

    def _client(
        self,
        endpoint: Endpoint,
        model: type[BaseModel],
        mode: StructuredMode,
        secrets: Sequence[str],
        max_tokens: int | None,
    ) -> ModelClient:
        settings = CallSettings(
            timeout_s=self.settings.timeout_s,
            temperature=self.settings.temperature,
            max_tokens=max_tokens,
            response_format=response_format(model, mode),
        )
        return ModelClient(
            endpoint,
            settings,
            retry_policy(self.settings),
            concurrency_for(endpoint, self.settings),
            secrets,
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
    from sandbox.local_model import RECOMMENDED_CONCURRENCY

    return min(settings.concurrency, RECOMMENDED_CONCURRENCY)


def choose_mode(structured: str, endpoint: Endpoint) -> StructuredMode:
    """'auto': strict json_schema when litellm says the model takes it; the llama.cpp
    form for local and fake models; otherwise the schema in the prompt only."""
    if structured != "auto":
        return cast(StructuredMode, structured)
    if endpoint.kind != "remote":
        return "json_object"
    from sandbox.agents.llm.provider import litellm_module

    try:
        if litellm_module().supports_response_schema(model=endpoint.model):
            return "json_schema"
    except Exception:  # unknown model: litellm raises instead of answering False
        return "none"
    return "none"
