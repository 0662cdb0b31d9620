"""The settings of an LLM seat: one model for the game file's ``[llm]`` defaults and
for each seat's overrides (only the keys a seat sets override the defaults), and
the answer lengths each prompt style implies (the prompt states them, the answer
schema asks for them)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Language = Literal["en", "zh"]
PromptStyle = Literal["full", "compact"]
# The structured-output ladder's rungs (docs/config.md): "schema" (strict JSON
# schema), "json" (the provider's JSON/tool mode), "prompt" (the schema in the
# prompt, the JSON read out of the text); "auto" takes the highest the model
# stands on. The older names stay accepted: json_schema, json_object, none.
Structured = Literal["auto", "schema", "json", "prompt", "json_schema", "json_object", "none"]
ReasoningEffort = Literal["none", "low", "medium", "high"]
DEFAULT_TIMEOUT_S = 60.0  # per HTTP attempt, unless the model's family needs longer


class LLMSettings(BaseModel):
    """How an LLM seat plays (everything but which model it calls)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    language: Language = Field("en", description="prompt and rules language")
    max_repairs: int = Field(2, ge=0, le=5, description="repair turns after an invalid answer")
    concurrency: int = Field(8, ge=1, le=256, description="calls in flight per model")
    belief_probe: bool = Field(
        False, description="with every decision, ask the probability of each seat's side"
    )
    probe_after_speech: bool = Field(
        False,
        description="after every public speech, ask each living listener for its "
        "probabilities in a probe-only call (for persuasion per speech)",
    )
    prompt_style: PromptStyle = Field(
        "full", description="'compact' = short primer and recent history, for small models"
    )
    history_items: int | None = Field(
        None, ge=1, le=100000, description="show at most this many recent history items"
    )
    shared_record: bool = Field(
        False,
        description="compact style: the events every seat saw first, then the role card "
        "and the seat's secret events, so one table's seats share a prompt prefix",
    )
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=16, le=32768)
    timeout_s: float | None = Field(
        None,
        gt=0,
        le=3600,
        description="per HTTP attempt (unset: 60, or the capability table's longer "
        "timeout for thinking models)",
    )
    reasoning_effort: ReasoningEffort | None = Field(
        None, description="how hard a reasoning model thinks (unset: the provider's default)"
    )
    thinking_budget: int | None = Field(
        None, ge=0, le=200_000, description="tokens a thinking model may spend (0: off)"
    )
    structured: Structured = Field("auto", description="how the answer schema is enforced")
    private_note: bool = Field(
        True,
        description="ask for a short private note ('reasoning') before the answer's fields; "
        "off: the answer holds only the fields (a small local model's note is not "
        "reasoning, and its tokens are a third of a vote's)",
    )
    context_window: int | None = Field(
        None, ge=512, le=10_000_000, description="the model's window in tokens (else looked up)"
    )
    cache: bool = Field(True, description="ask the provider to cache prompt prefixes")
    retry_attempts: int = Field(4, ge=1, le=10)
    retry_max_wait_s: float = Field(20.0, gt=0, le=600)
    retry_total_s: float = Field(120.0, gt=0, le=3600)

    def override(self, changes: BaseModel | dict[str, Any]) -> LLMSettings:
        """These settings with ``changes`` on top: a dict, or a model of which only
        the LLMSettings keys that were set explicitly count."""
        if isinstance(changes, BaseModel):
            keys = changes.model_fields_set & set(LLMSettings.model_fields)
            changes = {key: getattr(changes, key) for key in keys}
        return LLMSettings.model_validate({**self.model_dump(), **changes})


@dataclass(frozen=True)
class AnswerLimits:
    """Lengths the answer schema asks for, per prompt style.

    ``reasoning_chars``: the private note (a longer one is cut, never refused:
    the note is not part of the decision; 0: no note is asked). ``text_chars``: a cap on free-text
    fields below the referee's own limit (None: the referee's limit), so a
    small model's speech fits its token budget. ``open_with_seat``: on the
    grammar route, a speech opens by naming a seat.
    """

    reasoning_chars: int
    text_chars: int | None
    # The grammar route: a speech opens by naming a seat (grammar.OPENINGS), so a
    # small model's words stay at the table (issue 40 item 5).
    open_with_seat: bool = False


LIMITS: dict[str, AnswerLimits] = {
    "full": AnswerLimits(reasoning_chars=200, text_chars=None),
    "compact": AnswerLimits(reasoning_chars=48, text_chars=160, open_with_seat=True),
}


def limits_for(style: str, note: bool = True) -> AnswerLimits:
    """The style's lengths; ``note`` False: no private note is asked (0 characters)."""
    limits = LIMITS.get(style, LIMITS["full"])
    return limits if note else replace(limits, reasoning_chars=0)
