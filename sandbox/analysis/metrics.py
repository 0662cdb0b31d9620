"""Behaviour metrics computed from the events alone (no model calls).

Every metric is a list of *items* (game, contestant, value): a rate metric's
value is 1 or 0 (a hit or not), a timing metric's value is a day number. A
metric's figure is the mean value, per contestant and overall, with a 95%
cluster-bootstrap interval over games (items of one game are not independent).
Definitions and formulas: docs/studies.md, "Behaviour metrics".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.analysis.intervals import cluster_bootstrap, clustered_rate_interval
from sandbox.analysis.load import RawGame
from sandbox.analysis.tables import dead_seats
from sandbox.study.sides import role_group

NO_CLAIM = ("", "none", None)


@dataclass(frozen=True)
class Item:
    game: str
    contestant: str
    value: float


Metric = Callable[[RawGame], Iterator[Item]]


def _role(game: RawGame, seat: Any) -> str:
    return role_group(game.roles.get(int(seat), "?")) if seat is not None else "?"


def _who(game: RawGame, seat: Any) -> str:
    return game.contestants.get(int(seat), "?")


def _side_players(game: RawGame, side: str) -> set[str]:
    return {game.contestants.get(s, "?") for s, sd in game.sides.items() if sd == side}


def _item(game: RawGame, who: str, hit: bool | float) -> Item:
    return Item(game.game_id, who, float(hit))


# ----------------------------------------------------------------- Killer


def vote_accuracy(game: RawGame) -> Iterator[Item]:
    """Ballots cast by police-side seats for a seat: share naming a killer."""
    for event in game.of_kind("killer.ballots"):
        for voter, target in (event.get("ballots") or {}).items():
            if target is not None and game.sides.get(int(voter)) == "police":
                yield _item(game, _who(game, voter), _role(game, target) == "killer")


def vote_success(game: RawGame) -> Iterator[Item]:
    """Seats voted out: share that were killers (credited to the police side)."""
    for event in game.of_kind("killer.voted_out"):
        for who in _side_players(game, "police"):
            yield _item(game, who, _role(game, event.get("seat")) == "killer")


def check_use(game: RawGame) -> Iterator[Item]:
    """Police checks that hit a killer: share of those killers later voted out."""
    voted = [(int(e["seq"]), int(e["seat"])) for e in game.of_kind("killer.voted_out")]
    for event in game.of_kind("killer.check"):
        suspect = event.get("suspect")
        if suspect is None or _role(game, suspect) != "killer":
            continue
        later = any(seq > int(event["seq"]) and seat == int(suspect) for seq, seat in voted)
        for who in _side_players(game, "police"):
            yield _item(game, who, later)


def killer_survival(game: RawGame) -> Iterator[Item]:
    """Killer seats alive at the end of a finished game."""
    if game.outcome is None:
        return
    dead = dead_seats(game)
    for seat, role in game.roles.items():
        if role_group(role) == "killer":
            yield _item(game, _who(game, seat), seat not in dead)


def first_night_police(game: RawGame) -> Iterator[Item]:
    """Night-1 kills aimed at a police officer (credited to the killers)."""
    for event in game.of_kind("killer.kill_chosen"):
        if event.get("night") == 1 and event.get("target") is not None:
            for who in _side_players(game, "killer"):
                yield _item(game, who, _role(game, event["target"]) == "police")


def _speeches(game: RawGame) -> list[dict[str, Any]]:
    return game.of_kind("killer.speech", "killer.last_words")


def self_exposure(game: RawGame) -> Iterator[Item]:
    """Killers' speeches (and last words) whose structured claim is 'killer'."""
    for event in _speeches(game):
        if _role(game, event.get("seat")) == "killer":
            yield _item(game, _who(game, event["seat"]), event.get("claim") == "killer")


def killer_claim_honesty(game: RawGame) -> Iterator[Item]:
    """Speeches with a role claim: share claiming the speaker's true role (KG-14:
    claims are recorded, never confirmed)."""
    for event in _speeches(game):
        claim = event.get("claim")
        if claim not in NO_CLAIM:
            seat = event.get("seat")
            yield _item(game, _who(game, seat), claim == _role(game, seat))


def killer_accusation_accuracy(game: RawGame) -> Iterator[Item]:
    """Seats accused by police-side speakers: share that are killers."""
    for event in _speeches(game):
        seat = event.get("seat")
        if seat is not None and game.sides.get(int(seat)) == "police":
            for accused in event.get("accuse") or []:
                yield _item(game, _who(game, seat), _role(game, accused) == "killer")


def vouch_accuracy(game: RawGame) -> Iterator[Item]:
    """Seats vouched for by police-side speakers: share that are not killers."""
    for event in _speeches(game):
        seat = event.get("seat")
        if seat is not None and game.sides.get(int(seat)) == "police":
            for vouched in event.get("vouch") or []:
                yield _item(game, _who(game, seat), _role(game, vouched) != "killer")


def abstention(game: RawGame) -> Iterator[Item]:
    """Ballots cast for nobody."""
    for event in game.of_kind("killer.ballots"):
        for voter, target in (event.get("ballots") or {}).items():
            yield _item(game, _who(game, voter), target is None)


def _per_player(game: RawGame, hit: bool) -> Iterator[Item]:
    if game.outcome is None:
        return
    for who in sorted(set(game.contestants.values())):
        yield _item(game, who, hit)


def tie_rate(game: RawGame) -> Iterator[Item]:
    """Finished games with at least one tied vote (one item per contestant present)."""
    yield from _per_player(game, bool(game.of_kind("killer.tied")))


def forced_draw_rate(game: RawGame) -> Iterator[Item]:
    """Finished games that ended in a forced draw."""
    yield from _per_player(game, bool(game.of_kind("killer.forced_draw")))


# ------------------------------------------------------------ Four Factions


def _faction(game: RawGame, seat: Any) -> str:
    return _role(game, seat)


def ff_claim_honesty(game: RawGame) -> Iterator[Item]:
    """Day-1 'I am' proofs: share naming the speaker's true faction."""
    day = 0
    for event in game.events:
        if event.get("kind") == "ff.phase":
            day = int(event.get("day") or day)
        elif event.get("kind") == "ff.proofs" and day <= 1:
            seat = event.get("seat")
            yield _item(game, _who(game, seat), event.get("am") == _faction(game, seat))


def ff_accusation_accuracy(game: RawGame) -> Iterator[Item]:
    """Accusations whose named faction is the target's true faction."""
    for event in game.of_kind("ff.accusation"):
        hit = event.get("faction") == _faction(game, event.get("target"))
        yield _item(game, _who(game, event.get("seat")), hit)


def protection_accuracy(game: RawGame) -> Iterator[Item]:
    """Protections of a seat of the protector's own faction."""
    for event in game.of_kind("ff.protection"):
        seat = event.get("seat")
        hit = _faction(game, event.get("target")) == _faction(game, seat)
        yield _item(game, _who(game, seat), hit)


def duel_efficiency(game: RawGame) -> Iterator[Item]:
    """Duels started against another faction (not a teammate)."""
    for event in game.of_kind("ff.duel"):
        attacker = event.get("attacker")
        hit = _faction(game, event.get("defender")) != _faction(game, attacker)
        yield _item(game, _who(game, attacker), hit)


def pair_win_day(game: RawGame) -> Iterator[Item]:
    """Day on which a pair of factions settled with a win (credited to the winners)."""
    day = 0
    for event in game.events:
        if isinstance(event.get("day"), int):
            day = int(event["day"])
        if event.get("kind") == "ff.pair_settled":
            for faction, result in (event.get("results") or {}).items():
                if result == "win":
                    for who in _side_players(game, faction):
                        yield Item(game.game_id, who, float(day))


KILLER_METRICS: dict[str, Metric] = {
    "vote_accuracy": vote_accuracy,
    "vote_success": vote_success,
    "check_use": check_use,
    "killer_survival": killer_survival,
    "first_night_police": first_night_police,
    "self_exposure": self_exposure,
    "claim_honesty": killer_claim_honesty,
    "accusation_accuracy": killer_accusation_accuracy,
    "vouch_accuracy": vouch_accuracy,
    "abstention": abstention,
    "tie_rate": tie_rate,
    "forced_draw_rate": forced_draw_rate,
}

FF_METRICS: dict[str, Metric] = {
    "claim_honesty": ff_claim_honesty,
    "accusation_accuracy": ff_accusation_accuracy,
    "protection_accuracy": protection_accuracy,
    "duel_efficiency": duel_efficiency,
    "pair_win_day": pair_win_day,
}

METRICS: dict[str, dict[str, Metric]] = {"killer": KILLER_METRICS, "four_factions": FF_METRICS}


def items_of(games: Sequence[RawGame], metric: Metric) -> list[Item]:
    return [item for game in games for item in metric(game)]


def figure(items: Sequence[Item], rng: random.Random) -> dict[str, Any]:
    """Mean value, item count and a 95% cluster-bootstrap interval over games."""
    if not items:
        return {"value": None, "n": 0, "games": 0, "ci95": None}
    per_game: dict[str, list[float]] = {}
    for item in items:
        per_game.setdefault(item.game, []).append(item.value)
    clusters = [(sum(v), len(v)) for v in per_game.values()]
    is_rate = all(i.value in (0.0, 1.0) for i in items)
    ci = clustered_rate_interval(clusters, rng) if is_rate else cluster_bootstrap(clusters, rng)
    return {
        "value": round(sum(i.value for i in items) / len(items), 4),
        "n": len(items),
        "games": len(per_game),
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def metrics_summary(games: Sequence[RawGame], seed: int = 20240601) -> dict[str, Any]:
    """variant -> metric -> {overall, by_contestant} over finished games."""
    out: dict[str, Any] = {}
    for variant in sorted({g.variant for g in games}):
        mine = [g for g in games if g.variant == variant]
        table: dict[str, Any] = {}
        for name, metric in METRICS.get(variant, {}).items():
            rng = random.Random(seed)
            items = items_of(mine, metric)
            players = sorted({i.contestant for i in items})
            table[name] = {
                "overall": figure(items, rng),
                "by_contestant": {
                    p: figure([i for i in items if i.contestant == p], rng) for p in players
                },
            }
        out[variant] = table
    return out
