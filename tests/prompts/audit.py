"""The no-leak audit: which facts a seat may not know at a point of a game, and
whether a rendered prompt states any of them.

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
from dataclasses import dataclass
from functools import lru_cache

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.games.four_factions import events as ff
from sandbox.games.killer import events as kg

ZH = {
    "killer": "杀手", "police": "警察", "civilian": "平民",
    "wolves": "狼人", "spies": "间谍", "justice": "司法", "army": "军队", "elite": "最强精英",
    "rock": "石头", "scissors": "剪刀", "paper": "布",
}
# What may stand between "seat N" and a label when a renderer states a role:
# punctuation, "is"/"was", articles, and role-card words ("faction:", "Your role:").
SEAT_FIRST_JOIN = (
    r"(?:\s|[:=(,.→>\-]|\bis\b|\bwas\b|\ban?\b|\bthe\b|\bfaction\b|\brole\b|\byour\b)*"
)


@dataclass(frozen=True)
class Leak:
    seat: int
    fact: str
    line: str


@lru_cache(maxsize=4096)
def fact_patterns(t: int, label: str) -> tuple[re.Pattern[str], ...]:
    """Every way a renderer might say 'seat t is <label>'."""
    lab = re.escape(label)
    zh = re.escape(ZH.get(label, label))
    forms = [
        rf"\bseats?\s*{t}\b{SEAT_FIRST_JOIN}['\"]?{lab}\b",
        rf"(?<![\w.]){t}['\"]?\s*:\s*['\"]?{lab}\b",
        rf"\b{lab}\b[^\n\d]{{0,20}}?\bseats?\s+(?:\d+\s*,\s*)*{t}\b",
        rf"(?<!\d){t}号\s*(?:是|为|：|:|（)?\s*(?:{zh}|{lab})",
        rf"(?:{zh}|\b{lab}\b)[^\n\d]{{0,6}}(?:\d+、)*{t}(?:、\d+)*号",
    ]
    return tuple(re.compile(f, re.IGNORECASE) for f in forms)


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
    visible = {i for i, _ in game.visible_events(seat) if i < upto}
    known: set[tuple[int, str]] = set()
    hidden: set[tuple[int, str]] = set()
    duels: set[tuple[int, int]] = set()
    for i, event in enumerate(game.events[:upto]):
        facts = set(role_facts(event))
        if i in visible:
            known |= facts | set(known_by_duel(event))
            if isinstance(event, ff.EliteKnown):
                known |= {(event.elite_seat, f) for s, f in _own_faction(game, seat)}
        else:
            hidden |= facts
            if isinstance(event, ff.DuelResolved) and seat not in (event.attacker, event.defender):
                duels.add((event.attacker, event.defender))
    hidden = {(t, label) for t, label in hidden if t != seat and (t, label) not in known}
    return hidden, duels


def _own_faction(game: Game, seat: int) -> Iterable[tuple[int, str]]:
    for _, event in game.visible_events(seat):
        if isinstance(event, ff.RoleDealt) and event.seat == seat:
            yield seat, event.faction


def find_leaks(
    text: str, seat: int, facts: set[tuple[int, str]], duels: set[tuple[int, int]]
) -> list[Leak]:
    """Every forbidden fact stated somewhere in ``text``. Each pattern stays
    within one line, so only lines mentioning both the seat number and the
    label (in any casing or language) are searched: that keeps the audit fast."""
    leaks: list[Leak] = []
    for line in text.splitlines():
        numbers = {int(n) for n in re.findall(r"\d+", line)}
        if not numbers:
            continue
        lower = line.lower()
        for t, label in facts:
            mentioned = t in numbers and (label in lower or ZH.get(label, "\0") in line)
            if mentioned and any(p.search(line) for p in fact_patterns(t, label)):
                leaks.append(Leak(seat, f"seat {t} is {label}", line))
        for a, d in duels:
            if a in numbers and d in numbers and any(p.search(line) for p in duel_patterns(a, d)):
                leaks.append(Leak(seat, f"seat {a} attacked seat {d}", line))
    return leaks


def _line_of(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text[start : end if end >= 0 else len(text)]
