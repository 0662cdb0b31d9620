"""Reading the model's answer: lenient JSON, checked against the answer
format, and the follow-up message when it does not fit.

The text may come fenced in Markdown or wrapped in prose, after a reasoning
model's ``<think>`` block, with trailing remarks or more than one object (the
prompt rung of the structured-output ladder, where nothing but the prompt
asks for JSON): every JSON object in it is a candidate (fenced ones first,
then the others from the last one back), and the first that fits the
decision's model is the answer, and the probe's ``beliefs`` is checked apart
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
from sandbox.agents.llm.prompt.templates import generic_template

# The longest private note kept (a model that ignores the schema's limit is cut,
# not refused: the note is private and no part of the decision).
REASONING_KEEP_CHARS = 2000
FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
# A reasoning model's visible thinking (DeepSeek R1, Qwen3, QwQ), never the answer.
THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
TRAILING_COMMA = re.compile(r",(\s*[}\]])")
MAX_CANDIDATES = 16  # objects tried per answer (a long ramble stays cheap)


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
    candidates = json_objects(text)
    if not candidates:
        try:
            obj = json.loads(strip_fences(text), strict=False)
        except json.JSONDecodeError as err:
            raise AnswerError(f"The answer is not valid JSON ({err.msg}).") from None
        if not isinstance(obj, dict):
            raise AnswerError("The answer must be one JSON object.")
        candidates = [obj]
    first_error: ValidationError | None = None
    unasked: Any = ""
    for obj in candidates:
        raw_beliefs = obj.pop(BELIEFS, None)
        if REASONING not in model.model_fields:
            # No note was asked ([llm] private_note = false); one written
            # anyway is kept as the note, not refused as an extra key.
            unasked = obj.pop(REASONING, "")
        try:
            checked = model.model_validate(obj)
            break
        except ValidationError as err:
            first_error = first_error or err
    else:
        assert first_error is not None
        raise AnswerError(describe_validation(first_error)) from None
    data = checked.model_dump(mode="python")
    reasoning = str(data.pop(REASONING, unasked))[:REASONING_KEEP_CHARS]
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


def json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object written in ``text``, in the order they are tried:
    fenced blocks first, then the top-level objects of the prose from the last
    one back (a model's final answer usually ends its text). A reasoning
    model's ``<think>`` block is left out; a trailing comma is forgiven."""
    text = THINK.sub("", text)
    if "</think>" in text:  # an opening tag the server dropped: only what follows counts
        text = text.rsplit("</think>", 1)[1]
    found: list[dict[str, Any]] = []
    for block in FENCE.findall(text):
        found.extend(_objects_in(block.strip(), whole=True))
    found.extend(reversed(_objects_in(text, whole=False)))
    unique: list[dict[str, Any]] = []
    for obj in found:
        if obj not in unique:
            unique.append(obj)
    return unique[:MAX_CANDIDATES]


def _objects_in(text: str, whole: bool) -> list[dict[str, Any]]:
    """The top-level JSON objects in ``text`` (``whole``: the text is one value)."""
    decoder = json.JSONDecoder(strict=False)
    if whole:
        for attempt in (text, TRAILING_COMMA.sub(r"\1", text)):
            try:
                obj = decoder.decode(attempt)
            except json.JSONDecodeError:
                continue
            return [obj] if isinstance(obj, dict) else []
    out: list[dict[str, Any]] = []
    at = text.find("{")
    while at >= 0 and len(out) < MAX_CANDIDATES:
        try:
            obj, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            obj, end = _forgiving(text, at, decoder)
        if isinstance(obj, dict):
            out.append(obj)
            at = text.find("{", end)
        else:
            at = text.find("{", at + 1)
    return out


def _forgiving(text: str, at: int, decoder: json.JSONDecoder) -> tuple[Any, int]:
    """The object at ``at`` with trailing commas removed, up to its last
    closing brace; (None, at) when that is no JSON either."""
    end = text.rfind("}")
    if end <= at:
        return None, at
    try:
        return decoder.decode(TRAILING_COMMA.sub(r"\1", text[at : end + 1])), end + 1
    except json.JSONDecodeError:
        return None, at


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
    return generic_template(language, "repair.j2").render(error=safe_json(error_text))
