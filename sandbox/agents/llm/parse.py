"""Reading the model's answer: lenient JSON, checked against the answer
format, and the follow-up message when it does not fit.

The text may come fenced in Markdown or wrapped in prose; the JSON object in it
is validated against the decision's model, and the probe's ``beliefs`` apart
(a missing or off-schema beliefs object is dropped with its reason, never
repaired: the probe is for study, never a rule). An answer that does not fit
raises :class:`AnswerError`, whose text is written for the model: the repair
message quotes it and restates the format.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from sandbox.agents.llm.answer_format import BELIEFS, REASONING
from sandbox.agents.llm.beliefs import normalised
from sandbox.agents.llm.prompt.escaping import safe_json
from sandbox.agents.llm.prompt.templates import GENERIC, template

# The longest private note kept (a model that ignores the schema's limit is cut,
# not refused: the note is private and no part of the decision).
REASONING_KEEP_CHARS = 2000
FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class AnswerError(Exception):
    """An answer that is not a decision of the right shape; the text is for the model."""


@dataclass(frozen=True)
class ParsedAnswer:
    decision: dict[str, Any]
    reasoning: str
    beliefs: dict[str, Any] | None
    # Why the probe's beliefs were dropped (missing or off-schema); the
    # decision stands regardless: the probe is for study, never a rule.
    beliefs_error: str | None = None


def parse_answer(
    text: str, model: type[BaseModel], beliefs: type[BaseModel] | None = None
) -> ParsedAnswer:
    """Fence-stripped, lenient JSON, validated against ``model``. Raises AnswerError.

    A ``beliefs`` object is taken out first and checked on its own against
    ``beliefs`` (when probing): missing or off-schema, it is dropped and the
    reason kept in ``beliefs_error``; the decision never depends on it.
    """
    try:
        obj = json.loads(strip_fences(text), strict=False)
    except json.JSONDecodeError as err:
        raise AnswerError(f"The answer is not valid JSON ({err.msg}).") from None
    if not isinstance(obj, dict):
        raise AnswerError("The answer must be one JSON object.")
    raw_beliefs = obj.pop(BELIEFS, None)
    try:
        checked = model.model_validate(obj)
    except ValidationError as err:
        raise AnswerError(describe_validation(err)) from None
    data = checked.model_dump(mode="python")
    reasoning = str(data.pop(REASONING, ""))[:REASONING_KEEP_CHARS]
    if beliefs is None:
        return ParsedAnswer(data, reasoning, None)
    found, error = check_beliefs(raw_beliefs, beliefs)
    return ParsedAnswer(data, reasoning, found, error)


def check_beliefs(raw: Any, model: type[BaseModel]) -> tuple[dict[str, Any] | None, str | None]:
    """The beliefs keyed by seat ("2"), or None and why they were dropped.
    Distributions summing to 1 within SUM_TOLERANCE are normalised; one that
    does not drops the whole object (a half-read probe would bias the figures)."""
    if raw is None:
        return None, "beliefs missing"
    try:
        checked = model.model_validate(raw)
    except ValidationError as err:
        return None, describe_validation(err)
    found: dict[str, Any] = checked.model_dump(mode="python", by_alias=True)
    for seat, said in found.items():
        if not isinstance(said, dict):
            continue  # a variant without labels: free text
        spread = normalised(said)
        if spread is None:
            total = round(sum(said.values()), 4)
            return None, f"beliefs.{seat}: the probabilities sum to {total}, not 1"
        found[seat] = spread
    return found, None


def strip_fences(text: str) -> str:
    """The JSON inside a Markdown fence, or from the first '{' to the last '}'."""
    fenced = FENCE.search(text)
    if fenced:
        return fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        return text[start : end + 1]
    return text.strip()


def describe_validation(err: ValidationError) -> str:
    """Compact, URL-free lines a model can act on."""
    lines = []
    for item in err.errors(include_url=False, include_context=False, include_input=False):
        where = ".".join(str(p) for p in item["loc"]) or "(answer)"
        message = "unknown field, remove it" if item["type"] == "extra_forbidden" else item["msg"]
        lines.append(f"- {where}: {message}")
    return "The answer does not fit the schema:\n" + "\n".join(lines[:8])


def render_repair(error_text: str, language: str = "en") -> str:
    """The follow-up message after a rejected answer. The referee's error is
    quoted (it may echo the model's own text), then the format is restated."""
    return template(GENERIC, language, "repair.j2").render(error=safe_json(error_text))
