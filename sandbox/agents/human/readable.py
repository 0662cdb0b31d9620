"""Plain words for a seat's facts (its card, the public state), in English.

Kept for the callers that import it (the terminal human seat); the wording
itself lives in one place, :class:`sandbox.core.words.Lang`, speaking every
variant's words (:func:`sandbox.words.lang`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.variant import SeatView
from sandbox.core.words import Lang
from sandbox.words import lang


def _en() -> Lang:
    return lang("en")


def label(key: object) -> str:
    """A field name as words: ``living_seats`` → ``living seats``."""
    return _en().label(key)


def readable(value: Any) -> str:
    """One value in plain words: none/yes/no, lists joined, nested tables flattened."""
    return _en().value(value)


def fact_lines(facts: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, words) per fact, in the order given."""
    return _en().facts(facts)


def seat_alive(view: SeatView) -> bool:
    """Whether the seat is still in the game, by its own view: the living seats
    when the view lists them, else its card's ``alive``."""
    living = view.public.get("living")
    if isinstance(living, list | tuple):
        return view.seat in living
    return bool(view.private.get("alive", True))


def own_death(view: SeatView) -> Mapping[str, Any] | None:
    """The seat's own record among the dead (cause, day), from its view."""
    return next(
        (
            d
            for d in view.public.get("dead") or ()
            if isinstance(d, Mapping) and d.get("seat") == view.seat
        ),
        None,
    )
