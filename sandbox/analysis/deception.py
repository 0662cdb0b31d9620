"""Deceive and detect: two ratings per contestant (issue 39, item 2;
docs/studies.md, "Deceive and detect").

Both are Bradley–Terry ratings on the Elo scale
(:func:`sandbox.analysis.ratings.bradley_terry`) fitted to *duels* read from
the games, with the study's 95% interval: the percentile bootstrap over whole
games, each resample fitted the same way, widened to the point
(:func:`sandbox.analysis.ratings.interval_around`). A function of the set of
games only (games sorted by identity before resampling).

* **deceive**: for each statement (:func:`.statements.hearings`) by a seat that
  may deceive (one holding a hidden role of the variant's role table; every
  seat where it has none) and each listener on another side that cast a ballot
  after it that day: the speaker beats the listener when that ballot went along
  with one of the statement's lies (:func:`.statements.follows`), else the
  listener beats the speaker.
* **detect**: for each ballot on a seat, cast by a seat without a hidden role,
  and each hidden-role seat alive at that vote: the voter beats it when the
  ballot named a hidden-role seat, else the hidden seat beats the voter.

A contestant's two parts in a duel family are two players (the speaker and
the listener; the voter and the hidden seat), so its rating is its play in
that part against whoever faced it. Duels between seats of one contestant are
left out. Beside each rating: the share of its duels won, with the cluster
bootstrap over games (:func:`.metrics.figure`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED, percentile_interval
from sandbox.analysis.metrics import Item, figure
from sandbox.analysis.ratings import BOOTSTRAP_SAMPLES, bradley_terry, interval_around
from sandbox.analysis.statements import dead_before, follows, hearings, rules_of
from sandbox.deduction.tables import load_table
from sandbox.transcript import EventRow, Transcript

Duel = tuple[str, str]  # (winner, loser)
FAMILIES = ("deceive", "detect")
OPPONENT = {"deceive": "listener", "detect": "hidden"}


@dataclass
class Duels:
    """One game's duels of each family, and the contestants rated in each
    (the speakers of deceive, the voters of detect)."""

    game: str
    found: dict[str, list[Duel]] = field(default_factory=lambda: {f: [] for f in FAMILIES})
    rated: dict[str, set[str]] = field(default_factory=lambda: {f: set() for f in FAMILIES})

    def add(self, family: str, name: str, other: str, won: bool) -> None:
        pair = (name, opponent(other, family))
        self.found[family].append(pair if won else (pair[1], pair[0]))
        self.rated[family].add(name)


def opponent(name: str, family: str) -> str:
    """The player name of a contestant in the other part of a family's duels."""
    return f"{name} ({OPPONENT[family]})"


def duels_of(game: Transcript[EventRow]) -> Duels:
    """The deceive and detect duels of one game (see the module docstring)."""
    out = Duels(game.game_id)
    who, sides = game.contestants, game.sides
    try:
        hidden = load_table(game.variant).hidden
    except ValueError:
        return out
    hidden_seats = {s for s, r in game.roles.items() if r in hidden}
    for hearing in hearings(game):
        speaker = hearing.speaker
        if hidden_seats and speaker not in hidden_seats:
            continue
        lies = [claim for claim, label, _ in hearing.judged if label == "lie"]
        for listener, ballot in sorted(hearing.ballots.items()):
            a, b = who.get(speaker, "?"), who.get(listener, "?")
            if ballot is None or a == b or sides.get(listener) == sides.get(speaker):
                continue
            believed = any(follows(c, ballot[1], hearing.table) for c in lies)
            out.add("deceive", a, b, believed)
    if hidden_seats:
        _detect(game, hidden_seats, out)
    return out


def _detect(game: Transcript[EventRow], hidden_seats: set[int], out: Duels) -> None:
    rules = rules_of(game.variant)
    if rules is None:
        return
    who = game.contestants
    for index, event in enumerate(game.events):
        if event.get("kind") not in rules.ballots:
            continue
        dead = dead_before(game, index)
        drawn = {int(s) for s in event.get("drawn") or ()}  # drawn by the referee: no choice
        for voter_key, target in dict(event.get("ballots") or {}).items():
            voter = int(voter_key)
            if target is None or voter in hidden_seats or voter in drawn:
                continue
            hit = int(target) in hidden_seats
            for seat in sorted(hidden_seats - dead):
                a, b = who.get(voter, "?"), who.get(seat, "?")
                if a != b:
                    out.add("detect", a, b, hit)


def _wins(duels: Sequence[Duel]) -> dict[tuple[str, str], float]:
    """Wins per ordered pair, both directions present for every pair that met
    (bradley_terry adds its prior to each)."""
    wins: dict[tuple[str, str], float] = {}
    for winner, loser in duels:
        wins[(winner, loser)] = wins.get((winner, loser), 0.0) + 1.0
        wins.setdefault((loser, winner), 0.0)
    return wins


def _fit(games: Sequence[Duels], family: str) -> dict[str, float]:
    return bradley_terry(_wins([d for g in games for d in g.found[family]]))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's on ranks, ties given their mean
    rank); None with fewer than three pairs or no spread."""
    if len(xs) < 3:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx, syy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return None if sxx == 0 or syy == 0 else sxy / (sxx * syy) ** 0.5


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def _correlation(fits: Mapping[str, Mapping[str, float]], names: Sequence[str]) -> float | None:
    both = [n for n in names if n in fits["deceive"] and n in fits["detect"]]
    return spearman([fits["deceive"][n] for n in both], [fits["detect"][n] for n in both])


def deception_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any] | None:
    """``by_contestant`` -> {deceive, detect}: each {elo, elo_ci95, duels,
    won (share of duels won, cluster-bootstrap ci95)}; ``rank_correlation``:
    Spearman's ρ of the two Elo ratings over the contestants with both, with
    its bootstrap interval. None without a duel."""
    per_game = sorted((duels_of(g) for g in games), key=lambda d: d.game)
    per_game = [d for d in per_game if any(d.found.values())]
    if not per_game:
        return None
    names = sorted({n for g in per_game for f in FAMILIES for n in g.rated[f]})
    points = {f: _fit(per_game, f) for f in FAMILIES}
    rng = random.Random(seed + 1)
    draws: dict[str, dict[str, list[float]]] = {f: {} for f in FAMILIES}
    rhos: list[float] = []
    for _ in range(samples or BOOTSTRAP_SAMPLES):
        sample = [per_game[rng.randrange(len(per_game))] for _ in per_game]
        fits = {f: _fit(sample, f) for f in FAMILIES}
        for family, fit in fits.items():
            for name, value in fit.items():
                draws[family].setdefault(name, []).append(value)
        rho = _correlation(fits, names)
        if rho is not None:
            rhos.append(rho)
    shares = random.Random(seed)
    by_contestant: dict[str, dict[str, Any]] = {}
    for name in names:
        entry: dict[str, Any] = {}
        for family in FAMILIES:
            mine = [
                Item(g.game, name, 1.0 if d[0] == name else 0.0)
                for g in per_game
                for d in g.found[family]
                if name in d  # as the rated part: the other part's name has a suffix
            ]
            if not mine:
                entry[family] = None
                continue
            point = points[family][name]
            entry[family] = {
                "elo": round(point, 1),
                "elo_ci95": interval_around(point, draws[family].get(name, []), 1),
                "duels": len(mine),
                "won": figure(mine, shares),
            }
        by_contestant[name] = entry
    rho = _correlation(points, names)
    interval = percentile_interval(rhos)
    return {
        "by_contestant": by_contestant,
        "rank_correlation": {
            "spearman": None if rho is None else round(rho, 4),
            "ci95": None
            if rho is None or interval is None
            else [round(min(interval[0], rho), 4), round(max(interval[1], rho), 4)],
            "contestants": sum(1 for e in by_contestant.values() if e["deceive"] and e["detect"]),
        },
    }


def deception_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """The printed table: contestant, deceive and detect Elo with intervals and
    duels ("–" where a contestant has none); empty without the figures."""
    found = summary.get("deception") or {}
    rows = []
    for name, entry in sorted((found.get("by_contestant") or {}).items()):
        cells = [name]
        for family in FAMILIES:
            part = entry.get(family)
            cells.append("–" if not part else f"{part['elo']} {part['elo_ci95']} ({part['duels']})")
        rows.append(cells)
    return rows
