"""What a seat must decide, and the shape-level check of an answer.

A request lists its fields; each field says exactly which values are legal.
The same description drives the JSON schema given to models, the options shown
to a human, the random seat's draws and the referee's validation.

A field marked ``optional`` may be left out of an answer: the variant then
applies its documented default (schemas still ask for every field, so models
give them; scripted seats and answers recorded before the field existed need not).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.core.errors import IllegalDecision

Scalar = int | str | bool | None
Payload = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Choice:
    """Pick one of ``options`` (``None`` allowed only when ``nullable``)."""

    name: str
    options: tuple[Scalar, ...]
    description: str
    nullable: bool = False
    optional: bool = False

    def legal(self) -> tuple[Scalar, ...]:
        return (*self.options, None) if self.nullable else self.options


@dataclass(frozen=True, slots=True)
class MultiChoice:
    """Pick up to ``max_items`` distinct values of ``options``."""

    name: str
    options: tuple[Scalar, ...]
    description: str
    max_items: int
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Text:
    """Free text (a speech). Player text is data, never instructions."""

    name: str
    description: str
    max_chars: int = 1200
    optional: bool = False


Field = Choice | MultiChoice | Text


def accuse_and_vouch(
    targets: tuple[Scalar, ...], accuse: str, vouch: str
) -> tuple[MultiChoice, MultiChoice]:
    """A speech's structured accusations and vouches (KG-14, WW-12): each an
    optional pick of any of ``targets``, described by ``accuse`` and ``vouch``."""
    return (
        MultiChoice("accuse", targets, accuse, len(targets), optional=True),
        MultiChoice("vouch", targets, vouch, len(targets), optional=True),
    )


@dataclass(frozen=True, slots=True)
class DecisionRequest:
    """One decision a seat owes now. ``id`` is unique within a game."""

    id: str
    seat: int
    decision: str
    rule: str
    instruction: str
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def json_schema(self) -> dict[str, Any]:
        """A JSON schema whose enums are exactly the legal choices."""
        props = {f.name: _field_schema(f) for f in self.fields}
        return {
            "type": "object",
            "properties": props,
            "required": [f.name for f in self.fields],
            "additionalProperties": False,
        }


def request_id(step: int, seat: int, decision: str | None = None) -> str:
    """The id of ``seat``'s request in ``step``: unique within a game because a seat
    owes at most one decision per step. Without ``decision`` it is ``"<step>:<seat>"``;
    with it, ``"<step>.<seat>.<decision>"`` (ids that name the decision, as Killer's
    do). Transcripts store these strings, so both forms stay as they are."""
    if decision is None:
        return f"{step}:{seat}"
    return f"{step}.{seat}.{decision}"


def seat_request(
    step: int, seat: int, decision: str, rule: str, instruction: str, fields: tuple[Field, ...]
) -> DecisionRequest:
    """One seat's request, its id derived from the step, the seat and the decision."""
    return DecisionRequest(
        request_id(step, seat, decision), seat, decision, rule, instruction, fields
    )


def _field_schema(f: Field) -> dict[str, Any]:
    if isinstance(f, Text):
        return {"type": "string", "maxLength": f.max_chars, "description": f.description}
    if isinstance(f, MultiChoice):
        return {
            "type": "array",
            "items": {"enum": list(f.options)},
            "maxItems": f.max_items,
            "uniqueItems": True,
            "description": f.description,
        }
    return {"enum": list(f.legal()), "description": f.description}


def draw_payload(
    request: DecisionRequest, rng: random.Random, *, disjoint: bool = False
) -> dict[str, Any]:
    """One uniform draw over each field's legal values (shape-legal, not rule-checked).

    ``disjoint``: lists over the same options never share a value (a later list
    draws its size and its values from what the earlier ones left), as Killer's
    claims require of the accused and vouched seats (KG-14); the random seat uses
    it so that it rarely has to redraw. Without it the draws are as they always
    were (seeded tests and goldens depend on them)."""
    payload: dict[str, Any] = {}
    named: dict[tuple[Scalar, ...], list[Scalar]] = {}  # options -> values drawn so far
    for f in request.fields:
        if isinstance(f, Choice):
            payload[f.name] = rng.choice(f.legal())
        elif isinstance(f, MultiChoice):
            pool = list(f.options)
            if disjoint:
                drawn = named.setdefault(f.options, [])
                pool = [o for o in pool if o not in drawn]
            k = rng.randint(0, min(f.max_items, len(pool)))
            payload[f.name] = rng.sample(pool, k)
            if disjoint:
                drawn += payload[f.name]
        elif isinstance(f, Text):
            payload[f.name] = f"(seat {request.seat} says nothing of note)"
    return payload


def check_shape(request: DecisionRequest, payload: object) -> dict[str, Any]:
    """Validate ``payload`` against the request's fields; return it normalised.

    Raises :class:`IllegalDecision` naming the field and its legal values.
    """
    if type(payload) is not dict and not isinstance(payload, Mapping):  # dict: the usual
        raise IllegalDecision(request.rule, "The answer must be a JSON object.", _legal(request))
    # The fields are checked first and the names only when something is wrong (a
    # field's error, or fewer fields found than the answer has keys), so that an
    # unknown name is still the error reported first, as it always was.
    out: dict[str, Any] = {}
    try:
        for f in request.fields:
            if f.name not in payload:
                if f.optional:
                    continue  # the variant's default applies
                raise IllegalDecision(request.rule, f"Missing field '{f.name}'.", _legal(request))
            out[f.name] = _check_field(request.rule, f, payload[f.name])
    except Exception:  # whatever a field raised, an unknown name comes first
        _check_names(request, payload)
        raise
    if len(out) != len(payload):  # ``out`` holds only the answer's own keys
        _check_names(request, payload)
    return out


def _check_names(request: DecisionRequest, payload: Mapping[Any, object]) -> None:
    names = {f.name for f in request.fields}
    if not payload.keys() <= names:
        extra = sorted(set(payload) - names)
        raise IllegalDecision(
            request.rule,
            f"Unknown field(s) {extra}; expected exactly {sorted(names)}.",
        )


def _check_field(rule: str, f: Field, value: object) -> Any:
    if isinstance(f, Text):
        if not isinstance(value, str):
            raise IllegalDecision(rule, f"Field '{f.name}' must be a string.")
        if len(value) > f.max_chars:
            raise IllegalDecision(
                rule, f"Field '{f.name}' is {len(value)} characters; at most {f.max_chars}."
            )
        return value
    if isinstance(f, MultiChoice):
        return _check_multi(rule, f, value)
    # legal() is the options plus None when nullable; None is None's only value
    if not (f.nullable and value is None) and not _is_member(value, f.options):
        raise IllegalDecision(
            rule, f"Field '{f.name}' = {value!r} is not allowed.", {f.name: f.legal()}
        )
    return value


def _check_multi(rule: str, f: MultiChoice, value: object) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise IllegalDecision(rule, f"Field '{f.name}' must be a list.", {f.name: f.options})
    bad = [v for v in value if not _is_member(v, f.options)]
    if bad:
        raise IllegalDecision(
            rule, f"Field '{f.name}' has values {bad} that are not allowed.", {f.name: f.options}
        )
    if len(set(value)) != len(value) or len(value) > f.max_items:
        raise IllegalDecision(
            rule, f"Field '{f.name}' must hold at most {f.max_items} distinct values."
        )
    return tuple(value)  # members of the options: scalars, already frozen


def _is_member(value: object, options: tuple[Scalar, ...]) -> bool:
    # bool is an int subclass: True must not pass for seat 1, so the type counts too.
    try:
        return (type(value), value) in _typed(options)
    except TypeError:  # something unhashable: compare one by one, as defined
        return any(type(value) is type(o) and value == o for o in options)


# id(options) -> (options, their (type, value) pairs). Holding the tuple keeps its
# id from being reused, so an id found here is that very tuple. A request's options
# are asked again for every redraw, its dry run and its submit.
_TYPED: dict[int, tuple[tuple[Scalar, ...], frozenset[tuple[type, Scalar]]]] = {}
_TYPED_MAX = 1024


def _typed(options: tuple[Scalar, ...]) -> frozenset[tuple[type, Scalar]]:
    cached = _TYPED.get(id(options))
    if cached is not None:
        return cached[1]
    if len(_TYPED) >= _TYPED_MAX:
        _TYPED.clear()  # bounded: old steps' options are not asked again
    typed = frozenset((type(o), o) for o in options)
    _TYPED[id(options)] = (options, typed)
    return typed


def _legal(request: DecisionRequest) -> dict[str, tuple[Scalar, ...]]:
    return {f.name: f.legal() for f in request.fields if isinstance(f, Choice)}
