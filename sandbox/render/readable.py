"""Plain words for a seat's facts (its card, the public state) on a screen.

A role card or a state value is nested data (lists of checks, dicts of known
factions, None for "not yet"); people should read "checks: night 1, suspect 7,
answer civilian", never a Python repr. Used by ``view``, the live seat stream
and the terminal human seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def label(key: object) -> str:
    """A field name as words: ``fellow_police`` → ``fellow police``."""
    return str(key).replace("_", " ")


def readable(value: Any) -> str:
    """One value in plain words: none/yes/no, lists joined, nested tables flattened."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return ", ".join(f"{label(k)} {readable(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        if not value:
            return "none"
        nested = any(isinstance(v, Mapping | list | tuple) for v in value)
        return ("; " if nested else ", ").join(readable(v) for v in value)
    return str(value)


def fact_lines(facts: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, words) per fact, in the order given."""
    return [(label(key), readable(value)) for key, value in facts.items()]


def facts_text(facts: Mapping[str, Any]) -> str:
    """All facts on one line: ``role: police · fellow police: 10, 11``."""
    return " · ".join(f"{key}: {words}" for key, words in fact_lines(facts))
