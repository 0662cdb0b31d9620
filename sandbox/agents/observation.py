"""A seat's observation as data: what a program outside the sandbox needs to
decide one request, in one JSON-able dict (the stepping interface, the
framework adapters and remote seats all hand this out).

It holds four views of the same decision, each for another kind of reader:

- ``view``: the seat's legal view (``SeatView.to_json()``), folded from the
  events the seat saw and nothing else;
- ``prompt``: the system and user messages an LLM seat is given for this
  decision, in the seat's language (the same templates, rules text and
  record; no belief probe, the whole history);
- ``request``: the decision itself: id, kind, rule, instruction, every field
  with its legal options, and the referee's JSON schema of the answer
  (exactly the fields; a ``reasoning`` key may be added by adapters that take
  LLM-style answers, see docs/frameworks.md);
- ``masks`` and ``moves``: for programs that pick among discrete options. A
  *move* is a whole answer built from the discrete fields only (free text
  empty, lists empty) that the referee accepts; ``masks`` marks, per
  discrete field and in the order of that field's ``options``, the values
  some legal answer can hold (for a list field: the value alone added to the
  first move).

Everything is computed through the ``DecisionContext`` (the view and the
referee's dry-run check), so a seat never sees more than its view.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sandbox.agents.llm.prompt import RecordMemo, render_prompt
from sandbox.agents.llm.settings import PromptStyle
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import thaw
from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Scalar, Text
from sandbox.core.seat import DecisionContext
from sandbox.core.variant import SeatView

OBSERVATION_VERSION = 1
# Candidate answers tried when listing the moves (the product of a request's
# choice fields; the largest today is an accusation, seats x factions, < 50).
MAX_MOVES = 256

Validate = Callable[[object], Mapping[str, Any]]


def observe(
    ctx: DecisionContext,
    language: str = "en",
    *,
    style: PromptStyle = "full",
    memo: RecordMemo | None = None,
    items: dict[int, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The observation of ``ctx``'s request for its seat (see the module
    docstring). ``memo``: the seat's rendered record so far, and ``items``
    its history items as data by seq, both kept by the caller between the
    seat's decisions so that neither is redone from the start each time."""
    request = ctx.request
    view = ctx.view
    rendered = render_prompt(
        view, request, language=language, rules_text=ctx.rules(language), style=style, memo=memo
    )
    system, user = (m["content"] for m in rendered.messages)
    moves, complete = legal_moves(request, ctx.validate)
    return {
        "version": OBSERVATION_VERSION,
        "variant": ctx.variant.name,
        "seat": ctx.seat,
        "language": language,
        "view": view_data(view, items),
        # record_chars: where the part of ``user`` that only grows between the
        # seat's decisions ends (the record); after it come "now" and the question
        "prompt": {"system": system, "user": user, "record_chars": rendered.cache_chars},
        "request": request_data(request),
        "masks": field_masks(request, moves, ctx.validate),
        "moves": moves,
        "moves_complete": complete,
    }


def view_data(view: SeatView, items: dict[int, dict[str, Any]] | None = None) -> dict[str, Any]:
    """``view.to_json()``, with each history item converted once when ``items``
    (seq -> the item as data) is kept between calls: an item never changes."""
    cache = {} if items is None else items
    history = []
    for item in view.history:
        data = cache.get(item.seq)
        if data is None:
            data = cache[item.seq] = {
                "seq": item.seq,
                "kind": item.kind,
                "day": item.day,
                "phase": item.phase,
                "speaker": item.speaker,
                "speech": item.speech,
                "facts": thaw(item.facts),
                "public": item.public,
            }
        history.append(data)
    return {
        "variant": view.variant.name,
        "seat": view.seat,
        "private": thaw(view.private),
        "public": thaw(view.public),
        "history": history,
    }


def request_data(request: DecisionRequest) -> dict[str, Any]:
    """The request as plain data: its fields with their legal options and the
    referee's JSON schema of the answer."""
    return {
        "id": request.id,
        "kind": request.decision,
        "rule": request.rule,
        "instruction": request.instruction,
        "fields": [field_data(f) for f in request.fields],
        "schema": request.json_schema(),
    }


def field_data(f: Field) -> dict[str, Any]:
    """One field: ``type`` is "choice" (one of ``options``, null too when
    ``nullable``), "multi" (up to ``max_items`` distinct options) or "text"."""
    if isinstance(f, Text):
        return {
            "name": f.name,
            "type": "text",
            "description": f.description,
            "max_chars": f.max_chars,
            "optional": f.optional,
        }
    if isinstance(f, MultiChoice):
        return {
            "name": f.name,
            "type": "multi",
            "description": f.description,
            "options": list(f.options),
            "max_items": f.max_items,
            "optional": f.optional,
        }
    return {
        "name": f.name,
        "type": "choice",
        "description": f.description,
        "options": list(f.legal()),  # null last when nullable
        "nullable": f.nullable,
        "optional": f.optional,
    }


def legal_moves(request: DecisionRequest, validate: Validate) -> tuple[list[dict[str, Any]], bool]:
    """The answers built from the choice fields (every combination, in field
    and option order; free text empty, lists empty) that ``validate`` (the
    referee's dry run) accepts, and whether every combination was tried (at
    most MAX_MOVES are)."""
    moves: list[dict[str, Any]] = []
    candidates = _candidates(request)
    for candidate in itertools.islice(candidates, MAX_MOVES):
        try:
            normalised = validate(candidate)
        except IllegalDecision:
            continue
        moves.append(plain(normalised))
    complete = next(candidates, None) is None
    return moves, complete


def _candidates(request: DecisionRequest) -> Iterator[dict[str, Any]]:
    fixed: dict[str, Any] = {}
    choices: list[Choice] = []
    for f in request.fields:
        if isinstance(f, Choice):
            choices.append(f)
        elif isinstance(f, MultiChoice):
            fixed[f.name] = []
        else:
            fixed[f.name] = ""  # an empty speech passes (the variants' rule)
    for values in itertools.product(*(f.legal() for f in choices)):
        yield {**fixed, **{f.name: v for f, v in zip(choices, values, strict=True)}}


def field_masks(
    request: DecisionRequest, moves: Sequence[Mapping[str, Any]], validate: Validate
) -> dict[str, list[bool]]:
    """Per discrete field, one flag per option (in ``field_data``'s order):
    whether a legal answer can hold that value. A choice field's value is
    marked when one of ``moves`` holds it; a list field's when the first move
    with that value alone in the list is accepted."""
    masks: dict[str, list[bool]] = {}
    for f in request.fields:
        if isinstance(f, Choice):
            masks[f.name] = [any(_same(m.get(f.name), o) for m in moves) for o in f.legal()]
        elif isinstance(f, MultiChoice):
            first = moves[0] if moves else None
            masks[f.name] = [_accepts(validate, first, f.name, o) for o in f.options]
    return masks


def _accepts(validate: Validate, base: Mapping[str, Any] | None, name: str, value: Scalar) -> bool:
    if base is None:
        return False
    try:
        validate({**base, name: [value]})
    except IllegalDecision:
        return False
    return True


def _same(a: object, b: object) -> bool:
    # bool is an int: True must not mark seat 1 (as the referee's own check)
    return type(a) is type(b) and a == b


def plain(payload: Mapping[str, Any]) -> dict[str, Any]:
    """An answer as JSON data (the referee's normalised lists are tuples)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in payload.items()}
