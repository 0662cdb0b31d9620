"""The answer format of one decision: what the model is asked to answer, in
every form the later stages need, composed from cached parts.

An answer holds the request's fields with exactly the legal values, plus the
seat's private ``reasoning`` (kept as the decision's private note, never shown
to other seats) and, with the belief probe, its ``beliefs`` about other seats.
:func:`for_decision` gives the pydantic models ``parse`` checks the answer
against, the ``response_format`` sent with the call (strict ``json_schema``,
llama.cpp's ``json_object``, or none) and, when nothing constrains the
output, the same schema in words for the prompt.

Why composed: with the belief probe, the schema asked for is the decision's
own JSON schema plus a ``beliefs`` property. Built as one pydantic model per
(request, probe) and turned into JSON schema, it cost a model build and a
schema generation (1-3 ms) on nearly every call: each seat's probe and legal
options differ. So the decision's schema (per request shape) and the beliefs'
schema (per probe: a seat's changes only with a death) are cached apart and
joined as plain dicts; tests/agents/llm/test_wire.py checks, byte for byte,
that the join equals the reference built from one combined model
(:func:`answer_models`, :func:`model_response_format`).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional, cast

from pydantic import BaseModel, ConfigDict, create_model
from pydantic import Field as PydField

import sandbox.agents.llm.grammar as grammar
from sandbox.agents.llm.beliefs import BeliefProbe
from sandbox.agents.llm.ladder import RUNG_OF_MODE, StructuredMode
from sandbox.agents.llm.lru import byte_lru, model_size
from sandbox.agents.llm.settings import LIMITS, AnswerLimits
from sandbox.core.requests import DecisionRequest, Field, MultiChoice, Text

REASONING = "reasoning"
BELIEFS = "beliefs"
BELIEFS_DESCRIPTION = "Private: for each listed seat, how likely it is on each side."
FREE_BELIEF_CHARS = 120  # a variant without belief labels: a few words per seat
# Keywords OpenAI's strict mode rejects; the referee still checks lengths.
STRICT_UNSUPPORTED = ("maxLength", "minLength", "maxItems", "minItems", "uniqueItems", "default")

# llama.cpp turns maxLength into a bounded repetition in its grammar; long ones
# are refused ("exceeds sane defaults") and crashed llama-cpp-python's server.
# Short ones are kept: they make the grammar end the string, so a small model
# cannot run into max_tokens mid-answer. Longer limits are left to the referee.
GRAMMAR_MAX_LENGTH = 256
SCHEMA_LEAD = {
    "en": "Reply with one JSON object only (no other text) that matches this JSON schema:",
    "zh": "只回复一个符合下面JSON schema的JSON对象，不要有其他文字：",
}
# What decision_model gives the combined model's beliefs field.
BELIEFS_REF = "#/$defs/Beliefs"
# The caches' budgets in bytes (sandbox/agents/llm/lru.py says how sizes are
# measured). Most hits come from one sealed step asking many seats alike, close
# together in time; a request shape rarely recurs across games, so a long
# study only fills them (docs/faults.md, "Long runs").
MODELS_BYTES = 4 << 20
BELIEF_MODELS_BYTES = 2 << 20
SCHEMAS_BYTES = 2 << 20  # per table: model_schema, wire_schema, response_format
JSON_MODE: dict[str, Any] = {"type": "json_object"}  # a provider's own JSON mode (shared)


@dataclass(frozen=True)
class AnswerFormat:
    """One decision's answer format, for the stages after it.

    ``decision`` and ``beliefs`` are what ``parse`` validates, apart, so a bad
    beliefs object never costs the decision; ``response_format`` goes with the
    call (shared: never mutate it); ``hint`` is the schema in words, added to
    the question when nothing else constrains the output (mode "none")."""

    decision: type[BaseModel]
    beliefs: type[BaseModel] | None
    response_format: dict[str, Any] | None
    hint: str = ""
    rung: str = ""  # the ladder's rung it stands on (recorded per call as "mode")
    # Request fields besides response_format: the constrained route's GBNF
    # grammar (llama.cpp's "grammar"), see grammar.py. Shared: never mutate it.
    extra_body: Mapping[str, Any] | None = None

    def messages(
        self, prompt: Sequence[Mapping[str, str]], at: int | None = None
    ) -> list[dict[str, str]]:
        """The opening conversation: the prompt, with the hint after the
        question, or at character ``at`` of the last message (the shared
        record's layout: after the answer's fields, before the seat's own part)."""
        messages = [dict(m) for m in prompt]
        if self.hint:
            last = messages[-1]
            content = last["content"]
            cut = len(content) if at is None else at
            last["content"] = content[:cut] + self.hint + content[cut:]
        return messages


def for_decision(
    request: DecisionRequest,
    probe: BeliefProbe | None,
    limits: AnswerLimits,
    mode: StructuredMode,
    language: str,
    own_server: bool = True,
    takes_grammar: bool = False,
    max_tokens: int | None = None,
    shared: bool = False,
    own_fields: Sequence[str] = (),
) -> AnswerFormat:
    """Everything about the answer to ``request`` (with ``probe``'s beliefs, if any).
    The "json" rung of a remote provider is its plain JSON mode, which takes no
    schema: the schema then goes into the prompt as well (``own_server``
    False); our own servers take the llama.cpp form, schema included.
    ``takes_grammar``: the server takes a GBNF grammar (llama.cpp's); the
    "json" rung then sends the constrained route's grammar (grammar.py), fitted
    to the call's ``max_tokens`` (None: no limit), where it can say the answer.
    ``shared``: the prompt has the shared record's layout (its hint names no
    seat and leaves out ``own_fields``, which that layout lists after the card)."""
    if takes_grammar and mode == "json_object" and probe is None:
        constrained = grammar_format(request, limits, max_tokens, language, shared, own_fields)
        if constrained is not None:
            return constrained
    fmt = response_format(request, probe, limits, mode)
    in_prompt = mode == "none"
    if mode == "json_object" and not own_server:
        fmt, in_prompt = JSON_MODE, True
    return AnswerFormat(
        decision_model(request, None, limits),
        beliefs_model(probe) if probe is not None else None,
        fmt,
        schema_instructions(request, probe, limits, language) if in_prompt else "",
        RUNG_OF_MODE[mode],
    )


def grammar_format(
    request: DecisionRequest,
    limits: AnswerLimits,
    max_tokens: int | None,
    language: str,
    shared: bool = False,
    own_fields: Sequence[str] = (),
) -> AnswerFormat | None:
    """The constrained route's answer format (grammar.py), or None where its
    grammar cannot fit ``max_tokens``; ``shared``: its hint's example names
    no seat and leaves out ``own_fields``, so it reads alike for every seat
    of a step."""
    leave_out = frozenset(own_fields) if shared else frozenset()
    plan = grammar.plan_for(
        request,
        limits.reasoning_chars,
        limits.text_chars,
        max_tokens,
        language,
        leave_out,
        limits.open_with_seat,
    )
    if plan is None:
        return None
    return AnswerFormat(
        grammar.wire_model(decision_model(request, None, limits), plan),
        None,
        None,
        plan.hint(language, shared),
        RUNG_OF_MODE["json_object"],
        {"grammar": plan.grammar},
    )


# ------------------------------------------------------------ pydantic models
@dataclass(frozen=True)
class AnswerModels:
    """The reference: ``wire`` is one combined model of what the model is asked
    for (decision fields, reasoning and, with the probe, beliefs), which the
    composed schema must equal; ``decision`` and ``beliefs`` are validated apart."""

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


@byte_lru(MODELS_BYTES, size_of=model_size)
def _decision_model(
    decision: str,
    request_fields: tuple[Field, ...],
    probe: BeliefProbe | None,
    limits: AnswerLimits,
) -> type[BaseModel]:
    # Cached: a sealed step asks many seats the same question, and building a
    # pydantic model costs milliseconds of the step's serial CPU time.
    fields: dict[str, Any] = {}
    if limits.reasoning_chars > 0:  # 0: no note is asked ([llm] private_note = false)
        fields[REASONING] = (
            str,
            PydField(
                description="Your private reasoning, first. No other seat ever sees it; "
                "keep it short.",
                # Asked of the model (schema/grammar) but not validated: an
                # overlong note is cut in parse_answer, not sent back for repair.
                json_schema_extra={"maxLength": limits.reasoning_chars},
            ),
        )
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


@byte_lru(BELIEF_MODELS_BYTES, size_of=model_size)
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
                if probe.labels
                else f"Seat {s}: the side you think it is on.",
            ),
        )
        for s in probe.seats
    }
    config = ConfigDict(extra="forbid", populate_by_name=True)
    model: type[BaseModel] = create_model("Beliefs", __config__=config, **fields)
    return model


@byte_lru(BELIEF_MODELS_BYTES // 4, size_of=model_size)
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


# ---------------------------------------------------------------- wire forms
_Key = tuple[str, tuple[Any, ...], BeliefProbe | None, AnswerLimits, str]


def _shape(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits, mode: str = ""
) -> _Key:
    """The cache key of a request's wire forms: its shape, never its id."""
    return (request.decision, request.fields, probe, limits, mode)


@byte_lru(SCHEMAS_BYTES, key=_shape)
def wire_schema(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits
) -> Mapping[str, Any]:
    """The JSON schema of the answer asked for. Shared: never mutate it."""
    core = model_schema(decision_model(request, None, limits))
    return core if probe is None else with_beliefs(core, probe)


def with_beliefs(core: Mapping[str, Any], probe: BeliefProbe) -> dict[str, Any]:
    """The decision's schema with the probe's ``beliefs`` object added, laid
    out as pydantic lays out the combined model ($defs first)."""
    properties = {
        **core["properties"],
        BELIEFS: {"$ref": BELIEFS_REF, "description": BELIEFS_DESCRIPTION},
    }
    rest = {k: v for k, v in core.items() if k not in ("properties", "required")}
    beliefs = dict(model_schema(beliefs_model(probe)))
    # A probe's seats share one nested definition (the per-side distribution);
    # a combined model keeps every definition at the top, beside "Beliefs".
    nested = beliefs.pop("$defs", {})
    return {
        "$defs": dict(sorted({**nested, "Beliefs": beliefs}.items())),
        "additionalProperties": rest.pop("additionalProperties"),
        "properties": properties,
        "required": [*core["required"], BELIEFS],
        **rest,
    }


# The key holds its model alive: charged too.
@byte_lru(SCHEMAS_BYTES, key_size=lambda key: model_size(key[0]))
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """pydantic's JSON schema of ``model``, once per model. Shared: never mutate it."""
    return model.model_json_schema()


@byte_lru(SCHEMAS_BYTES, key=_shape)
def response_format(
    request: DecisionRequest,
    probe: BeliefProbe | None,
    limits: AnswerLimits,
    mode: StructuredMode,
) -> dict[str, Any] | None:
    """What to send as ``response_format`` (what :func:`model_response_format`
    gives for the combined model), cached per request shape, probe and mode.
    Shared: never mutate it."""
    return format_of(wire_schema(request, probe, limits), mode)


def schema_instructions(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits, language: str
) -> str:
    """For providers without structured output: the schema written into the prompt."""
    return in_words(wire_schema(request, probe, limits), language)


def in_words(schema: Mapping[str, Any], language: str) -> str:
    """A JSON schema as the prompt states it: a lead sentence, then the schema."""
    text = json.dumps(schema, ensure_ascii=False)
    return f"\n\n{SCHEMA_LEAD.get(language, SCHEMA_LEAD['en'])}\n{text}"


def format_of(schema: Mapping[str, Any], mode: StructuredMode) -> dict[str, Any] | None:
    """``response_format`` for an answer's JSON schema (a shared, cached schema:
    strict_schema and grammar_safe leave it unchanged)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "decision", "strict": True, "schema": strict_schema(schema)},
        }
    if mode == "json_object":
        # llama.cpp's own form; its server answers the OpenAI form with HTTP 500.
        return {"type": "json_object", "schema": grammar_safe(schema)}
    return None


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


# ---------------------------------------------------- reference (one model)
def model_response_format(model: type[BaseModel], mode: StructuredMode) -> dict[str, Any] | None:
    """``response_format`` for one whole answer model: the reference that
    :func:`response_format` composes (checked byte for byte in the tests)."""
    return format_of(copy.deepcopy(model_schema(model)), mode)


def model_schema_instructions(model: type[BaseModel], language: str = "en") -> str:
    """:func:`schema_instructions` for one whole answer model (the reference)."""
    return in_words(model_schema(model), language)
