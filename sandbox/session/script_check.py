"""Scripted entries checked before play: every error that needs no game to see.

A scripted ``[[agent]]`` lists answers in order. Its names are checked against
the variant's declared decisions (``VariantInfo.decisions``); its values
against the shape of each answer field — a seat number that exists, text no
longer than the speech limit, a list of seats no longer than allowed. Which
field is a seat, a text or a list is learnt from the variant itself, by
opening a few seeded games at the file's own config and recording the fields
of every request they ask; nothing here knows a variant by name. A field those
games never asked for is only checked for what no answer can hold.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from sandbox.agents.simple import RANDOM_TRIES
from sandbox.core.errors import ConfigError, IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Scalar, Text, draw_payload
from sandbox.core.variant import Variant

# Keys of a scripted entry that are not answer fields.
SCRIPT_KEYS = frozenset({"decision", "note"})

PROBE_SEEDS = range(3)  # games opened to learn the fields' shapes (a few ms each)
PROBE_STEPS = 5_000  # answers per probe game at most (a guard, never reached)


@dataclass
class Shape:
    """What the requests seen for one (decision, field) allowed, pooled."""

    kind: type[Choice | MultiChoice | Text]
    options: set[Scalar]
    max_items: int = 0
    max_chars: int = 0


Shapes = dict[tuple[str, str], Shape]


def check_script(
    name: str,
    entries: Sequence[Mapping[str, Any]],
    variant: Variant[Any],
    game_config: BaseModel,
) -> None:
    """Each scripted entry names a decision of the variant (if it names one),
    only answer fields that decision (or, unnamed, any decision) has, and values
    those fields can take in this game."""
    decisions = variant.research.decision_fields(game_config)
    if not decisions:
        return
    every_field = sorted({f for fields in decisions.values() for f in fields})
    seats = range(1, variant.rules.seat_count(game_config) + 1)
    shapes: Shapes | None = None
    for index, entry in enumerate(entries, 1):
        where = f"{name}.decisions[{index}]"
        wanted = entry.get("decision")
        if wanted is not None and wanted not in decisions:
            raise ConfigError(
                f"{where}.decision: '{wanted}' is not a decision of this game; "
                f"allowed: {', '.join(decisions)}"
            )
        allowed = decisions[wanted] if wanted is not None else every_field
        unknown = [k for k in entry if k not in SCRIPT_KEYS and k not in allowed]
        if unknown:
            of = f" of '{wanted}'" if wanted is not None else ""
            raise ConfigError(
                f"{where}: '{unknown[0]}' is not an answer field{of}; "
                f"allowed: {', '.join([*allowed, *sorted(SCRIPT_KEYS)])}"
            )
        _check_values(where, entry)
        if shapes is None:
            shapes = _shapes(variant, game_config)
        names = [wanted] if wanted is not None else list(decisions)
        for key, value in entry.items():
            if key not in SCRIPT_KEYS:
                _check_field(f"{where}.{key}", value, _pooled(shapes, names, key), seats)


def _check_values(where: str, entry: Mapping[str, Any]) -> None:
    """What no answer can hold, whatever the game: a table or a float as a value,
    a list holding anything but numbers or text, text as the note or the decision
    name (run would only find these when the entry's turn came)."""
    for key in ("decision", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise ConfigError(f"{where}.{key}: must be text (got {entry[key]!r})")
    for key, value in entry.items():
        if key in SCRIPT_KEYS:
            continue
        items = value if isinstance(value, list) else [value]
        if isinstance(value, dict) or any(isinstance(item, dict | list | float) for item in items):
            raise ConfigError(
                f"{where}.{key}: an answer is a number, text, true/false or a list of "
                f"numbers or text (got {value!r})"
            )


def _check_field(where: str, value: Any, shape: Shape | None, seats: range) -> None:
    if shape is None:
        return  # not asked in the probe games: its shape is unknown
    if shape.kind is Text:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: must be text (got {value!r})")
        if len(value) > shape.max_chars:
            raise ConfigError(
                f"{where}: {len(value)} characters; at most {shape.max_chars} allowed"
            )
        return
    if shape.kind is MultiChoice:
        if not isinstance(value, list):
            raise ConfigError(f"{where}: must be a list (got {value!r})")
        if len(value) > shape.max_items:
            raise ConfigError(f"{where}: {len(value)} items; at most {shape.max_items} allowed")
        for item in value:
            _check_scalar(where, item, shape, seats)
        return
    if isinstance(value, list):
        raise ConfigError(f"{where}: must be one value, not a list (got {value!r})")
    _check_scalar(where, value, shape, seats)


def _check_scalar(where: str, value: Any, shape: Shape, seats: range) -> None:
    """The value's type is one the options have; a number, within their range
    (the seats of this game when the options are seats)."""
    types = {type(o) for o in shape.options if o is not None}
    if type(value) not in types:
        names = " or ".join(sorted(_TYPE_WORDS[t] for t in types))
        raise ConfigError(f"{where}: must be {names} (got {value!r})")
    if type(value) is not int:
        return
    numbers = [o for o in shape.options if type(o) is int]
    span = seats if all(o in seats for o in numbers) else range(min(numbers), max(numbers) + 1)
    if value not in span:
        what = "seat" if span is seats else "value"
        raise ConfigError(
            f"{where}: {what} {value} does not exist in this game; allowed: "
            f"{span.start}..{span.stop - 1}"
        )


_TYPE_WORDS = {int: "a number", str: "text", bool: "true/false"}


def _pooled(shapes: Shapes, decisions: Iterable[str], key: str) -> Shape | None:
    """One field's shape over the given decisions (several when the entry names
    none): only a check that holds for every one of them may refuse it."""
    found = [shapes[(d, key)] for d in decisions if (d, key) in shapes]
    if not found or any(s.kind is not found[0].kind for s in found):
        return None
    pooled = Shape(found[0].kind, set())
    for shape in found:
        pooled.options |= shape.options
        pooled.max_items = max(pooled.max_items, shape.max_items)
        pooled.max_chars = max(pooled.max_chars, shape.max_chars)
    return pooled


def _shapes(variant: Variant[Any], game_config: BaseModel) -> Shapes:
    shapes: Shapes = {}
    for seed in PROBE_SEEDS:
        _probe(Game.new(variant, game_config, seed), random.Random(seed), shapes)
    return shapes


def _probe(game: Game, rng: random.Random, shapes: Shapes) -> None:
    """Play one game with shape-legal random answers, recording every field asked."""
    for _ in range(PROBE_STEPS):
        pending = game.pending()
        if game.over or not pending:
            return
        request = pending[0]
        _record(request, shapes)
        for _ in range(RANDOM_TRIES):
            try:
                game.submit(request.id, draw_payload(request, rng, disjoint=True))
                break
            except IllegalDecision:
                continue
        else:
            game.submit_fallback(request.id, "probe")


def _record(request: DecisionRequest, shapes: Shapes) -> None:
    for f in request.fields:
        shape = shapes.setdefault((request.decision, f.name), Shape(type(f), set()))
        if shape.kind is not type(f):
            continue  # a field whose kind varies: _pooled leaves it unchecked
        if isinstance(f, Text):
            shape.max_chars = max(shape.max_chars, f.max_chars)
        elif isinstance(f, MultiChoice):
            shape.options.update(f.options)
            shape.max_items = max(shape.max_items, f.max_items)
        else:
            shape.options.update(f.legal())
