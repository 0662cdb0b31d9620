"""The leak finder: where a text given to a seat states a fact it may not
know, in a form a renderer would use: "seat 4 is a killer", "Seat 4: KILLER",
``"4": "killer"``, "killer team: seats 4, 6", and the Chinese forms of the
words given as aliases."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

from sandbox.testing.facts import Fact


@dataclass(frozen=True)
class Leak:
    """A line of a seat's prompt stating something the seat may not know."""

    seat: int
    fact: str
    line: str


_NUMBER = re.compile(r"\d+")

# What may stand between "seat N" and a label when a renderer states a role:
# punctuation, "is"/"was", articles, and role-card words ("faction:", "Your role:").
SEAT_FIRST_JOIN = (
    r"(?:\s|[:=(,.→>\-]|\bis\b|\bwas\b|\ban?\b|\bthe\b|\bfaction\b|\brole\b|\byour\b)*"
)


@lru_cache(maxsize=4096)
def fact_patterns(t: int, label: str, alias: str = "") -> tuple[re.Pattern[str], ...]:
    """Every way a renderer might say 'seat t is <label>' (``alias``: another
    word for the label, e.g. its Chinese name)."""
    lab = re.escape(label)
    other = re.escape(alias or label)
    forms = [
        rf"\bseats?\s*{t}\b{SEAT_FIRST_JOIN}['\"]?{lab}\b",
        rf"(?<![\w.]){t}['\"]?\s*:\s*['\"]?{lab}\b",
        # "werewolves: seats 4, 6" - within one sentence, as a seat's words are read
        # (facts.said_facts): "Seat 7 was a villager. I doubt seat 1" says nothing of seat 1
        rf"\b{lab}\b[^\n\d.!?;。！？；]{{0,20}}?\bseats?\s+(?:\d+\s*,\s*)*{t}\b",
        rf"(?<!\d){t}号\s*(?:是|为|：|:|（)?\s*(?:{other}|{lab})",
        rf"(?:{other}|\b{lab}\b)[^\n\d]{{0,6}}(?:\d+、)*{t}(?:、\d+)*号",
    ]
    return tuple(re.compile(f, re.IGNORECASE) for f in forms)


def find_leaks(
    text: str, seat: int, facts: Collection[Fact], aliases: Mapping[str, str] | None = None
) -> list[Leak]:
    """Every fact of ``facts`` stated somewhere in ``text``. Each pattern stays
    within one line, so only lines mentioning both the seat number and the
    label (in any casing, or its alias) are searched: that keeps the audit fast."""
    aliases = aliases or {}
    leaks: list[Leak] = []
    for line in text.splitlines():
        numbers = {int(n) for n in _NUMBER.findall(line)}
        if not numbers:
            continue
        lower = line.lower()
        for t, label in facts:
            alias = aliases.get(label, "")
            mentioned = t in numbers and (label in lower or bool(alias and alias in line))
            if mentioned and any(p.search(line) for p in fact_patterns(t, label, alias)):
                leaks.append(Leak(seat, f"seat {t} is {label}", line))
    return leaks
