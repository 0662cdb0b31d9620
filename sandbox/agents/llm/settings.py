"""The settings of an LLM seat: one model for the game file's ``[llm]`` defaults and
for each seat's overrides (only the keys a seat sets override the defaults), and
the answer lengths each prompt style implies (the prompt states them, the answer
schema asks for them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Language = Literal["en", "zh"]
PromptStyle = Literal["full", "compact"]
Structured = Literal["auto", "json_schema", "json_object", "none"]


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
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=16, le=32768)
    timeout_s: float = Field(60.0, gt=0, le=3600, description="per HTTP attempt")
    structured: Structured = Field("auto", description="how the answer schema is enforced")
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


SETTING_KEYS = frozenset(LLMSettings.model_fields)


@dataclass(frozen=True)
class AnswerLimits:
    """Lengths the answer schema asks for, per prompt style.

    ``reasoning_chars``: the private note (a longer one is cut, never refused:
    the note is not part of the decision). ``text_chars``: a cap on free-text
    fields below the referee's own limit (None: the referee's limit), so a
    small model's speech fits its token budget.
    """

    reasoning_chars: int
    text_chars: int | None


LIMITS: dict[str, AnswerLimits] = {
    "full": AnswerLimits(reasoning_chars=200, text_chars=None),
    "compact": AnswerLimits(reasoning_chars=48, text_chars=160),
}


def limits_for(style: str) -> AnswerLimits:
    return LIMITS.get(style, LIMITS["full"])
