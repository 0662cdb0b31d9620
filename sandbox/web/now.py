"""The "Now" panel of a seat's page in plain words (issue 38 item 3): what the
seat knows at this moment, without the blanks ("floor none", "roles none"), and
of the game's rulings only those that differ from the variant's defaults — the
rest of the rules is one click away (the page's Rules dialog).

Built only from the seat's own view (its ``public`` facts); the defaults are the
variant's own configuration with nothing set."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.agents.human.terminal import known_facts
from sandbox.core.variant import SeatView
from sandbox.words import lang

# The public fact that holds a game's rulings, where a variant shows them.
RULINGS = "rules"

Rows = list[tuple[str, str]]


@dataclass(frozen=True)
class Now:
    facts: Rows
    # None: the view shows no rulings; else those that differ from the defaults
    rulings: Rows | None = None


def now_of(view: SeatView, language: str) -> Now:
    L = lang(language, view.variant)
    facts: dict[str, Any] = {}
    rulings: dict[str, Any] | None = None
    for key, value in known_facts(view.public).items():
        if key == RULINGS and isinstance(value, Mapping):
            rulings = differing(view, value)
        elif not _blank(value):
            facts[key] = value
    return Now(L.facts(facts), None if rulings is None else L.facts(rulings))


def differing(view: SeatView, rulings: Mapping[str, Any]) -> dict[str, Any]:
    """The rulings whose value is not the variant's default (a value the defaults
    do not hold, such as a count derived from the players, is no ruling)."""
    defaults = _plain(view.variant.parse_config({}).model_dump(mode="json"))
    return {
        key: value
        for key, value in rulings.items()
        if key in defaults and _plain(value) != defaults[key]
    }


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, Mapping | list | tuple | str) and not value)


def _plain(value: Any) -> Any:
    """``value`` as JSON would hold it (an enum as its value, a tuple as a list)."""
    return json.loads(json.dumps(value, default=str))
