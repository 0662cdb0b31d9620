"""Decisions as schemas: a pydantic model per request, its wire forms, and parsing.

The model holds the request's fields with exactly the legal values, plus the
seat's private ``reasoning`` (kept as the decision's private note, never shown
to other seats) and, with the belief probe, its ``beliefs`` about other seats.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional, cast

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic import Field as PydField

from sandbox.agents.llm.beliefs import BeliefProbe, normalised
from sandbox.core.requests import DecisionRequest, Field, MultiChoice, Text

REASONING = "reasoning"
# The longest private note kept (a model that ignores the schema's limit is cut,
# not refused: the note is private and no part of the decision).
REASONING_KEEP_CHARS = 2000
BELIEFS = "beliefs"
BELIEFS_DESCRIPTION = "Private: for each listed seat, how likely it is on each side."
FREE_BELIEF_CHARS = 120  # a variant without belief labels: a few words per seat
# Keywords OpenAI's strict mode rejects; the referee still checks lengths.
STRICT_UNSUPPORTED = ("maxLength", "minLength", "maxItems", "minItems", "uniqueItems", "default")
FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)

StructuredMode = Literal["json_schema", "json_object", "none"]
# llama.cpp turns maxLength into a bounded repetition in its grammar; long ones
# are refused ("exceeds sane defaults") and crashed llama-cpp-python's server.
# Short ones are kept: they make the grammar end the string, so a small model
# cannot run into max_tokens mid-answer. Longer limits are left to the referee.
GRAMMAR_MAX_LENGTH = 256


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


@dataclass(frozen=True)
class AnswerModels:
    """``wire``: what the model is asked for (decision fields, reasoning and,
    with the probe, beliefs). ``decision`` and ``beliefs`` are validated apart,
    so a bad beliefs object never costs the decision."""

    wire: type[BaseModel]
    decision: type[BaseModel]
    beliefs: type[BaseModel] | None


def answer_models(
    request: DecisionRequest,
    probe: BeliefProbe | None = None,
    limits: AnswerLimits = LIMITS["full"],
) -> AnswerModels:
    core = decision_model(request, None, limits)
    if probe is None:
        return AnswerModels(core, core, None)
    return AnswerModels(decision_model(request, probe, limits), core, beliefs_model(probe))


def decision_model(
    request: DecisionRequest,
    probe: BeliefProbe | None = None,
    limits: AnswerLimits = LIMITS["full"],
) -> type[BaseModel]:
    """The pydantic model of one request's answer (extra keys forbidden); with a
    probe, it also holds the ``beliefs`` object (the form sent to the model)."""
    return _decision_model(request.decision, request.fields, probe, limits)


@functools.lru_cache(maxsize=512)
def _decision_model(
    decision: str,
    request_fields: tuple[Field, ...],
    probe: BeliefProbe | None,
    limits: AnswerLimits,
) -> type[BaseModel]:
    # Cached: a sealed step asks many seats the same question, and building a
    # pydantic model costs milliseconds of the step's serial CPU time.
    fields: dict[str, Any] = {
        REASONING: (
            str,
            PydField(
                description="Your private reasoning, first. No other seat ever sees it; "
                "keep it short.",
                # Asked of the model (schema/grammar) but not validated: an
                # overlong note is cut in parse_answer, not sent back for repair.
                json_schema_extra={"maxLength": limits.reasoning_chars},
            ),
        )
    }
    for f in request_fields:
        fields[f.name] = _field(f, limits.text_chars)
    if probe is not None:
        fields[BELIEFS] = (
            beliefs_model(probe),
            PydField(description=BELIEFS_DESCRIPTION),
        )
    name = re.sub(r"\W", "_", f"Decision_{decision}")
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
    return model


@functools.lru_cache(maxsize=256)
def beliefs_model(probe: BeliefProbe) -> type[BaseModel]:
    """Keys are the probe's seats as strings ("2"; "seat_2" is accepted too),
    values a distribution over its labels (free text when the variant has none)."""
    # Cached: a seat's probe changes only with a death, and each seat has its
    # own, so the decision model above misses across seats.
    value: Any = distribution_model(probe.labels) if probe.labels else str
    fields: dict[str, Any] = {
        f"seat_{s}": (
            value,
            PydField(
                alias=str(s),
                max_length=None if probe.labels else FREE_BELIEF_CHARS,
                description=f"Seat {s}: how likely it is on each side."
                if probe.labels else f"Seat {s}: the side you think it is on.",
            ),
        )
        for s in probe.seats
    }
    config = ConfigDict(extra="forbid", populate_by_name=True)
    model: type[BaseModel] = create_model("Beliefs", __config__=config, **fields)
    return model


@functools.lru_cache(maxsize=16)
def distribution_model(labels: tuple[str, ...]) -> type[BaseModel]:
    """One number in [0, 1] per label, every label required (their sum is
    checked in check_beliefs, where it can be normalised)."""
    fields: dict[str, Any] = {
        label: (float, PydField(ge=0.0, le=1.0, description=f"P({label})")) for label in labels
    }
    model: type[BaseModel] = create_model(
        "Distribution", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def _field(f: Field, text_cap: int | None = None) -> tuple[Any, Any]:
    if isinstance(f, Text):
        chars = f.max_chars if text_cap is None else min(f.max_chars, text_cap)
        return str, PydField(max_length=chars, description=f.description)
    if isinstance(f, MultiChoice):
        item = _literal(f.options)
        return list[item], PydField(max_length=f.max_items, description=f.description)  # type: ignore[valid-type]
    choice = _literal(f.options)
    kind = Optional[choice] if f.nullable else choice  # noqa: UP045 - built at run time
    return kind, PydField(description=f.description)


def _literal(values: Sequence[Any]) -> Any:
    if not values:
        return type(None)
    return cast(Any, Literal)[tuple(values)]


# ------------------------------------------------------------------ wire forms
def response_format(model: type[BaseModel], mode: StructuredMode) -> dict[str, Any] | None:
    """What to send as ``response_format`` for a structured-output mode."""
    return format_of(copy.deepcopy(_json_schema(model)), mode)


def format_of(schema: Mapping[str, Any], mode: StructuredMode) -> dict[str, Any] | None:
    """``response_format`` for an answer's JSON schema (wire.py passes a shared,
    cached schema: strict_schema and grammar_safe leave it unchanged)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "decision", "strict": True, "schema": strict_schema(schema)},
        }
    if mode == "json_object":
        # llama.cpp's own form; its server answers the OpenAI form with HTTP 500.
        return {"type": "json_object", "schema": grammar_safe(schema)}
    return None


@functools.lru_cache(maxsize=512)
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def strict_schema(schema: Mapping[str, Any]) -> Any:
    """OpenAI strict form: anyOf instead of oneOf, no discriminator, $refs inlined,
    every property required, no additional properties, no unsupported keywords."""
    return _strict(schema, schema.get("$defs") or {})


def _strict(schema: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(schema, list):
        return [_strict(s, defs) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    if "$ref" in schema:
        target = defs[str(schema["$ref"]).rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _strict(merged, defs)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("discriminator", "$defs") or key in STRICT_UNSUPPORTED:
            continue
        out["anyOf" if key == "oneOf" else key] = _strict(value, defs)
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def grammar_safe(schema: Any) -> Any:
    """The schema without length limits llama.cpp's grammar cannot take
    (``maxLength`` over GRAMMAR_MAX_LENGTH); the referee still checks them."""
    if isinstance(schema, list):
        return [grammar_safe(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    return {
        key: grammar_safe(value)
        for key, value in schema.items()
        if not (key == "maxLength" and isinstance(value, int) and value > GRAMMAR_MAX_LENGTH)
    }


SCHEMA_LEAD = {
    "en": "Reply with one JSON object only (no other text) that matches this JSON schema:",
    "zh": "只回复一个符合下面JSON schema的JSON对象，不要有其他文字：",
}


def schema_instructions(model: type[BaseModel], language: str = "en") -> str:
    """For providers without structured output: the schema written into the prompt."""
    schema = json.dumps(_json_schema(model), ensure_ascii=False)
    return f"\n\n{SCHEMA_LEAD.get(language, SCHEMA_LEAD['en'])}\n{schema}"


# --------------------------------------------------------------------- parsing
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


def check_beliefs(
    raw: Any, model: type[BaseModel]
) -> tuple[dict[str, Any] | None, str | None]:
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
