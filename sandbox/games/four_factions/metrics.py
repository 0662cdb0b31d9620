"""Four Factions behaviour metrics, computed from a transcript's events alone (no
model calls): ``FourFactions.metrics()`` gives :data:`METRICS` to the study
summaries and ``sandbox report``. A rate metric's value is 1 or 0 (a hit or not); a
timing metric's value is a day number. Definitions: docs/studies.md,
"Behaviour metrics".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sandbox.core.metrics import GameRecord, Metric, MetricItem


def _faction(game: GameRecord, seat: Any) -> str:
    """The seat's faction: its role label up to the '/' ("wolves/elite")."""
    if seat is None:
        return "?"
    return game.roles.get(int(seat), "?").split("/", 1)[0]


def _who(game: GameRecord, seat: Any) -> str:
    return game.contestants.get(int(seat), "?")


def _side_players(game: GameRecord, side: str) -> set[str]:
    return {game.contestants.get(s, "?") for s, sd in game.sides.items() if sd == side}


def _item(game: GameRecord, who: str, hit: bool) -> MetricItem:
    return MetricItem(game.game_id, who, float(hit))


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
