"""Four Factions behaviour metrics, computed from a transcript's events alone (no
model calls): ``FourFactions.metrics()`` gives :data:`METRICS` to the study
summaries and ``sandbox report``. A rate metric's value is 1 or 0 (a hit or not); a
timing metric's value is a day number. Definitions: docs/study-reference.md,
"Behaviour metrics".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sandbox.core.metrics import GameRecord, Metric, MetricItem
from sandbox.core.metrics import item as _item
from sandbox.core.metrics import side_players as _side_players
from sandbox.core.metrics import who as _who
from sandbox.core.statements import (
    Fact,
    Roles,
    Row,
    Said,
    StatementRules,
    each_named,
    named,
    seat_of,
)
from sandbox.games.four_factions.config import INFO, role_label


def _faction(game: GameRecord, seat: Any) -> str:
    """The seat's faction: its role label up to the '/' ("wolves/elite")."""
    if seat is None:
        return "?"
    return game.roles.get(int(seat), "?").split("/", 1)[0]


def claim_honesty(game: GameRecord) -> Iterator[MetricItem]:
    """Day-1 'I am' proofs: share naming the speaker's true faction."""
    day = 0
    for event in game.events:
        if event.get("kind") == "ff.phase":
            day = int(event.get("day") or day)
        elif event.get("kind") == "ff.proofs" and day <= 1:
            seat = event.get("seat")
            yield _item(game, _who(game, seat), event.get("am") == _faction(game, seat))


def accusation_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Accusations whose named faction is the target's true faction."""
    for event in game.of_kind("ff.accusation"):
        hit = event.get("faction") == _faction(game, event.get("target"))
        yield _item(game, _who(game, event.get("seat")), hit)


def protection_accuracy(game: GameRecord) -> Iterator[MetricItem]:
    """Protections of a seat of the protector's own faction."""
    for event in game.of_kind("ff.protection"):
        seat = event.get("seat")
        hit = _faction(game, event.get("target")) == _faction(game, seat)
        yield _item(game, _who(game, seat), hit)


def duel_efficiency(game: GameRecord) -> Iterator[MetricItem]:
    """Duels started against another faction (not a teammate)."""
    for event in game.of_kind("ff.duel"):
        attacker = event.get("attacker")
        hit = _faction(game, event.get("defender")) != _faction(game, attacker)
        yield _item(game, _who(game, attacker), hit)


def pair_win_day(game: GameRecord) -> Iterator[MetricItem]:
    """Day on which a pair of factions settled with a win (credited to the winners)."""
    day = 0
    for event in game.events:
        if isinstance(event.get("day"), int):
            day = int(event["day"])
        if event.get("kind") == "ff.pair_settled":
            for faction, result in (event.get("results") or {}).items():
                if result == "win":
                    for who in _side_players(game, faction):
                        yield MetricItem(game.game_id, who, float(day))


METRICS: dict[str, Metric] = {
    "claim_honesty": claim_honesty,
    "accusation_accuracy": accusation_accuracy,
    "protection_accuracy": protection_accuracy,
    "duel_efficiency": duel_efficiency,
    "pair_win_day": pair_win_day,
}


# ------------------------------------------------------- statements (issue 39)
# Read by sandbox.analysis.statements (docs/study-reference.md, "Statements: who lied").
# No hidden side: every faction may lie, and an accusation names a faction (FF-14).

EVERY: Roles = frozenset(INFO.roles)
STATED = ("ff.proofs", "ff.accusation", "ff.protection", "ff.speech")


def faction_of(role: str) -> str:
    return role.split("/", 1)[0]  # "wolves/elite" plays for the wolves (FF-2)


def _roles(label: object) -> Roles:
    return named(label, EVERY, faction_of) or frozenset()


def statement_claims(events: Sequence[Row], index: int) -> Iterator[Said]:
    """FF-13's proof ("I am <am>"), FF-14's accusation (a seat's faction),
    FF-15's protection (a vouch for the target's day-1 claim, if it made one)."""
    event = events[index]
    kind, speaker, target = (
        event.get("kind"),
        seat_of(event.get("seat")),
        seat_of(event.get("target")),
    )
    if speaker is None:
        return
    if kind == "ff.proofs" and (am := _roles(event.get("am"))):
        yield Said("role", speaker, am)
    elif kind == "ff.accusation" and target is not None and (said := _roles(event.get("faction"))):
        yield Said("accuse", target, said)
    elif kind == "ff.protection" and target is not None:
        yield Said("vouch", target, _day_one_claim(events, index, target))


def _day_one_claim(events: Sequence[Row], index: int, target: int) -> Roles:
    for event in reversed(events[:index]):
        if event.get("kind") == "ff.proofs" and event.get("seat") == target:
            return _roles(event.get("am"))
    return frozenset()


def statement_facts(
    event: Row, seat: int, known: Mapping[int, Roles], seats: Sequence[int]
) -> Iterator[Fact]:
    """What a seat learns of the roles from an event it saw."""
    kind = event.get("kind")
    if kind == "ff.role" and (own := seat_of(event.get("seat"))) is not None:
        # FF-5..7: the faction and rank on the card
        yield own, frozenset((role_label(str(event.get("faction")), bool(event.get("elite"))),))
    elif kind == "ff.elite_knowledge":  # FF-9: the elite learns the regulars' factions
        for other, faction in dict(event.get("regulars") or {}).items():
            yield int(other), frozenset((role_label(str(faction), False),))
    elif kind == "ff.elite_known" and (elite := seat_of(event.get("elite_seat"))) is not None:
        # FF-10: a regular learns its faction's elite (the faction is its own)
        factions = {faction_of(role) for role in known.get(seat, frozenset())}
        if len(factions) == 1:
            yield elite, frozenset((role_label(factions.pop(), True),))
    elif kind == "ff.dawn":  # FF-28: the factions of the dead
        yield from each_named(event.get("factions"), EVERY, faction_of)


STATEMENTS = StatementRules(
    text=dict.fromkeys(STATED, "speech"),
    claims=statement_claims,
    facts=statement_facts,
)
