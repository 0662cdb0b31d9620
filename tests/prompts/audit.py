"""The no-leak audit of the built-in variants: which facts a seat may not know
at a point of a game, and whether a rendered prompt states any of them.

The generic machinery (fact patterns, the search, the seen/unseen bookkeeping)
is the shipped conformance kit's (``sandbox.testing``); this file adds what only
Four Factions and Killer know: exactly which events state which facts.
Forbidden facts come from the events the seat was NOT allowed to see (other
seats' role cards, referee-only duels, the killers' and police's private
events), minus what the seat learned legitimately from events it saw (team
lists, the elite's knowledge, duel reports, check results, revealed roles).
A fact "seat t is L" is looked for in every form a renderer could plausibly
state it: prose ("seat 4 is a killer", "Seat 4: KILLER"), JSON or dict
entries ('"4": "killer"', "4: 'killer'"), lists ("killer team is seats 4, 6")
and Chinese ("4号是杀手", "杀手是 4、6号"), case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.games.four_factions import events as ff
from sandbox.games.killer import events as kg
from sandbox.testing import Leak, forbidden_facts
from sandbox.testing import find_leaks as find_fact_leaks
from sandbox.testing.facts import said_facts

ZH = {
    "killer": "杀手",
    "police": "警察",
    "civilian": "平民",
    "wolves": "狼人",
    "spies": "间谍",
    "justice": "司法",
    "army": "军队",
    "elite": "最强精英",
    "rock": "石头",
    "scissors": "剪刀",
    "paper": "布",
}

LABELS = frozenset(ZH)


@lru_cache(maxsize=4096)
def duel_patterns(attacker: int, defender: int) -> tuple[re.Pattern[str], ...]:
    """A duel the seat did not witness: who attacked whom."""
    forms = [
        rf"\bseat\s*{attacker}\b[^\n\d]{{0,24}}attack\w*[^\n\d]{{0,12}}seat\s*{defender}\b",
        rf"\"attacker\":\s*{attacker}\b[^\n]{{0,40}}\"defender\":\s*{defender}\b",
        rf"(?<!\d){attacker}号[^\n\d]{{0,6}}攻击[^\n\d]{{0,4}}{defender}号",
    ]
    return tuple(re.compile(f, re.IGNORECASE) for f in forms)


def role_facts(event: Event) -> Iterable[tuple[int, str]]:
    """(seat, label) facts an event states about a seat."""
    if isinstance(event, kg.RoleCard):
        yield event.seat, event.role
    elif isinstance(event, kg.TeamList):
        yield from ((s, event.role) for s in event.members)
    elif isinstance(event, kg.CheckResult) and event.suspect is not None and event.answer:
        yield event.suspect, event.answer
    elif isinstance(event, kg.Dawn | kg.VotedOut) and event.role:
        yield (event.victim if isinstance(event, kg.Dawn) else event.seat) or 0, event.role
    elif isinstance(event, ff.RoleDealt):
        yield event.seat, event.faction
        if event.elite:
            yield event.seat, "elite"
        if event.weapon:
            yield event.seat, event.weapon
    elif isinstance(event, ff.EliteKnowledge):
        yield from ((int(s), f) for s, f in event.regulars.items())
    elif isinstance(event, ff.EliteKnown):
        yield event.elite_seat, "elite"
    elif isinstance(event, ff.DawnReport):
        yield from ((int(s), f) for s, f in event.factions.items())


def known_by_duel(event: Event) -> Iterable[tuple[int, str]]:
    """FF-12: a duel report tells the weapon the other side struck with."""
    if isinstance(event, ff.AttackReport) and event.struck_back_with:
        yield event.target, event.struck_back_with
    elif isinstance(event, ff.DefenceReport) and event.attacker is not None:
        yield event.attacker, event.struck_with


Facts = set[tuple[int, str]]
Duels = set[tuple[int, int]]


def forbidden(game: Game, seat: int, upto: int) -> tuple[Facts, Duels]:
    """Facts about other seats, and duels, that ``seat`` may not know before event ``upto``."""
    facts = forbidden_facts(game, seat, upto, role_facts, learned=_learned)
    duels = {
        (event.attacker, event.defender)
        for event in game.events[:upto]
        if isinstance(event, ff.DuelResolved)
        and not event.visibility().visible_to(seat)
        and seat not in (event.attacker, event.defender)
    }
    return facts, duels


def _learned(game: Game, seat: int, event: Event) -> Iterable[tuple[int, str]]:
    """What a seat infers from an event it saw, beyond what the event states."""
    yield from known_by_duel(event)
    # A seat's speech is its word, which a hearer may repeat (bots' games).
    yield from said_facts(event.to_json()["data"], LABELS, ZH)
    if isinstance(event, ff.EliteKnown):  # FF-10: the elite is of the seat's own faction
        yield from ((event.elite_seat, f) for _, f in _own_faction(game, seat))


def _own_faction(game: Game, seat: int) -> Iterable[tuple[int, str]]:
    for _, event in game.visible_events(seat):
        if isinstance(event, ff.RoleDealt) and event.seat == seat:
            yield seat, event.faction


def find_leaks(
    text: str, seat: int, facts: set[tuple[int, str]], duels: set[tuple[int, int]]
) -> list[Leak]:
    """Every forbidden fact (the kit's search, with the Chinese labels) and
    every unwitnessed duel stated somewhere in ``text``."""
    leaks = find_fact_leaks(text, seat, facts, ZH)
    for line in text.splitlines():
        numbers = {int(n) for n in re.findall(r"\d+", line)}
        for a, d in duels:
            if a in numbers and d in numbers and any(p.search(line) for p in duel_patterns(a, d)):
                leaks.append(Leak(seat, f"seat {a} attacked seat {d}", line))
    return leaks


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]
