"""Deceive and detect: two ratings per contestant (issue 39, item 2;
docs/study-reference.md, "Deceive and detect").

Each contestant plays two parts, its *deceive* part (a seat that may deceive:
one holding a hidden role of the variant's role table; every seat where it has
none) and its *detect* part (a seat without a hidden role), and the two parts
meet in *duels* read from the games:

* a **lie duel**, for each statement (:func:`.statements.hearings`) by a seat
  that may deceive and each listener on another side that cast a ballot (or
  abstained) after it that day: the speaker's deceive part wins when that
  ballot went along with one of the statement's lies
  (:func:`.statements.follows`: a lie believed), else the listener's detect
  part wins. A listener with no such ballot but probed right before and right
  after the statement (nothing else seen between) duels on its beliefs: a
  lie believed when its probability of one of the lies rose
  (:func:`.statements.listener_shift`);
* a **vote duel**, for each ballot on a seat cast by a seat without a hidden
  role and each hidden-role seat alive at that vote: the voter's detect part
  wins when the ballot named a hidden-role seat, else the hidden seat's
  deceive part wins (it survived that ballot).

A Bradley–Terry fit over the parts on the Elo scale
(:func:`sandbox.analysis.ratings.bradley_terry`) gives both ratings, so a
deceive rating and a detect rating compare directly (400 points = 10:1 odds
in a duel). Intervals are the study's: the percentile bootstrap over whole
games, each resample fitted the same way, widened to the point
(:func:`sandbox.analysis.ratings.interval_around`), except that a resample
whose duel graph splits a component of the full graph is drawn again (the
levels of the pieces would not be measured); games are sorted by identity
first, so the figures are a function of the set of games only.
Duels between seats of one contestant are left out. Beside each rating: the
share of its duels won, with the cluster bootstrap over games
(:func:`.metrics.figure`).

Each component of the duel graph is fitted apart, and two ratings compare only
within one (:mod:`.duel_graph`; with two contestants their deceive ratings
never do). Each rating is also fitted on each kind of duel alone
(``by_kind``): the lie duels carry what a speaker's lies did, the vote duels
only whether a hidden seat survived.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.analysis.duel_graph import components, fit_components, warning
from sandbox.analysis.intervals import BOOTSTRAP_SEED, percentile_interval
from sandbox.analysis.metrics import Item, figure
from sandbox.analysis.ratings import BOOTSTRAP_SAMPLES, interval_around
from sandbox.analysis.statements import (
    dead_before,
    follows,
    hearings,
    listener_shift,
    probed_around,
    probes_of,
    rules_of,
)
from sandbox.deduction.tables import load_table
from sandbox.transcript import EventRow, Transcript

PARTS = ("deceive", "detect")
KINDS = ("lie", "vote")


@dataclass(frozen=True)
class Duel:
    """One duel: ``kind`` (lie or vote), the deceive part's contestant, the
    detect part's, and whether the deceive part won."""

    kind: str
    deceiver: str
    detector: str
    deceived: bool

    def winner(self) -> str:
        return (
            player("deceive", self.deceiver) if self.deceived else player("detect", self.detector)
        )

    def loser(self) -> str:
        return (
            player("detect", self.detector) if self.deceived else player("deceive", self.deceiver)
        )


def player(part: str, name: str) -> str:
    """The fit's name of a contestant's part ("deceive:A")."""
    return f"{part}:{name}"


@dataclass
class Duels:
    """One game's duels."""

    game: str
    found: list[Duel] = field(default_factory=list)

    def add(self, kind: str, deceiver: str, detector: str, deceived: bool) -> None:
        if deceiver != detector:
            self.found.append(Duel(kind, deceiver, detector, deceived))


def duels_of(game: Transcript[EventRow]) -> Duels:
    """The lie and vote duels of one game (see the module docstring)."""
    who, sides = game.contestants, game.sides
    out = Duels(game.game_id)
    try:
        hidden = load_table(game.variant).hidden
    except ValueError:
        return out
    hidden_seats = {s for s, r in game.roles.items() if r in hidden}
    probes = probes_of(game)
    for hearing in hearings(game):
        speaker = hearing.speaker
        if hidden_seats and speaker not in hidden_seats:
            continue
        lies = [claim for claim, label, _ in hearing.judged if label == "lie"]
        for listener, ballot in sorted(hearing.ballots.items()):
            if sides.get(listener) == sides.get(speaker):
                continue
            if ballot is not None:  # its ballot says whether it believed a lie
                believed = any(follows(c, ballot[1], hearing.table) for c in lies)
            elif probed_around(game, probes, hearing.index, listener):  # else its beliefs
                believed = any(
                    (listener_shift(game, probes, hearing.index, listener, c) or 0.0) > 0
                    for c in lies
                )
            else:
                continue
            out.add("lie", who.get(speaker, "?"), who.get(listener, "?"), believed)
    if hidden_seats:
        _votes(game, hidden_seats, out)
    return out


def _votes(game: Transcript[EventRow], hidden_seats: set[int], out: Duels) -> None:
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
                out.add("vote", who.get(seat, "?"), who.get(voter, "?"), not hit)


def _wins(duels: Sequence[Duel]) -> dict[tuple[str, str], float]:
    """Wins per ordered pair of parts, both directions present for every pair
    that met (bradley_terry adds its prior to each)."""
    wins: dict[tuple[str, str], float] = {}
    for duel in duels:
        winner, loser = duel.winner(), duel.loser()
        wins[(winner, loser)] = wins.get((winner, loser), 0.0) + 1.0
        wins.setdefault((loser, winner), 0.0)
    return wins


def _wins_of(games: Sequence[Duels], kind: str = "") -> dict[tuple[str, str], float]:
    """:func:`_wins` of the games' duels (of ``kind`` alone with a kind)."""
    return _wins([d for g in games for d in g.found if d.kind == kind or not kind])


def _fit(games: Sequence[Duels], kind: str = "") -> dict[str, float]:
    """Both ratings of every part, one fit per component of the duel graph
    (:mod:`.duel_graph`)."""
    return fit_components(_wins_of(games, kind))


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


def _correlation(fit: Mapping[str, float], names: Sequence[str]) -> float | None:
    both = [n for n in names if player("deceive", n) in fit and player("detect", n) in fit]
    return spearman(
        [fit[player("deceive", n)] for n in both], [fit[player("detect", n)] for n in both]
    )


def deception_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any] | None:
    """``by_contestant`` -> {deceive, detect}: each {elo, elo_ci95, component,
    by_kind (kind -> the same three from the duels of that kind alone, or
    None), duels, lie_duels, vote_duels, won (share of its duels won,
    cluster-bootstrap ci95), won_by_kind (the same per kind)}, None for a part
    it never played; ``graph``: the components of the duel graph and how many
    resamples were drawn again for splitting one (``split_resamples``) or kept
    split (``split_kept``); ``comparable`` and ``warning`` (:mod:`.duel_graph`);
    ``rank_correlation``: Spearman's ρ of the two ratings over the contestants
    with both, with its bootstrap interval (none unless both families
    compare). None without a duel."""
    per_game = sorted((duels_of(g) for g in games), key=lambda d: d.game)
    per_game = [d for d in per_game if d.found]
    if not per_game:
        return None
    names = sorted({n for g in per_game for d in g.found for n in (d.deceiver, d.detector)})
    fits = {kind: _Fit.of(per_game, kind) for kind in ("", *KINDS)}
    groups, where = fits[""].groups, fits[""].where
    apart = {f: _by_component(where, f, names) for f in PARTS}
    both = all(len(found) == 1 for found in apart.values())
    rng = random.Random(seed + 1)
    rhos: list[float] = []
    runs = samples or BOOTSTRAP_SAMPLES
    drawn = _Resamples(per_game, where, runs, rng)
    for resample in drawn:
        for kind, rated in fits.items():
            rated.add(_fit(resample, kind))
        rho = _correlation(fits[""].draws_last, names) if both else None
        if rho is not None:
            rhos.append(rho)
    shares = random.Random(seed)
    by_contestant = {name: _parts(name, per_game, fits, shares) for name in names}
    rho = _correlation(fits[""].point, names) if both else None
    interval = percentile_interval(rhos)
    return {
        "by_contestant": by_contestant,
        "graph": {
            "components": groups,
            "connected": len(groups) == 1,
            "resamples": runs,
            "split_resamples": drawn.split,
            "split_kept": drawn.kept_split,
        },
        "comparable": {f: len(found) == 1 for f, found in apart.items()},
        "warning": warning(apart),
        "rank_correlation": {
            "spearman": None if rho is None else round(rho, 4),
            "ci95": None
            if rho is None or interval is None
            else [round(min(interval[0], rho), 4), round(max(interval[1], rho), 4)],
            "contestants": sum(1 for e in by_contestant.values() if e["deceive"] and e["detect"]),
        },
    }


# A resample that splits a component leaves the levels of its pieces unmeasured;
# it is drawn again, at most this many times the resamples asked for in all
# (past that, a split resample is kept and counted: a study too sparse to say).
REDRAWS = 10


@dataclass
class _Resamples:
    """Bootstrap resamples of whole games that keep the full graph's
    components: one that splits one is drawn again (``split`` counts them;
    ``kept_split`` those kept once the redraws ran out)."""

    games: Sequence[Duels]
    where: Mapping[str, int]
    runs: int
    rng: random.Random
    split: int = 0
    kept_split: int = 0

    def __iter__(self) -> Iterator[list[Duels]]:
        for _ in range(self.runs):
            while True:
                resample = [self.games[self.rng.randrange(len(self.games))] for _ in self.games]
                if self.whole(resample):
                    break
                if self.split >= REDRAWS * self.runs:
                    self.kept_split += 1
                    break
                self.split += 1
            yield resample

    def whole(self, resample: Sequence[Duels]) -> bool:
        """Whether no two pieces of the resample's graph belong to one
        component of the full graph."""
        pieces = [self.where[group[0]] for group in components(_wins_of(resample))]
        return len(pieces) == len(set(pieces))


@dataclass
class _Fit:
    """A fit on all the games (``point``), the components of its graph
    (``groups``; ``where``: part -> its component), and each part's
    bootstrap draws."""

    point: dict[str, float]
    groups: list[list[str]]
    where: dict[str, int]
    draws: dict[str, list[float]] = field(default_factory=dict)
    draws_last: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, games: Sequence[Duels], kind: str) -> _Fit:
        wins = _wins_of(games, kind)
        groups = components(wins)
        where = {part: i for i, group in enumerate(groups) for part in group}
        return cls(fit_components(wins), groups, where)

    def add(self, fit: dict[str, float]) -> None:
        self.draws_last = fit
        for who, value in fit.items():
            self.draws.setdefault(who, []).append(value)

    def rating(self, who: str) -> dict[str, Any] | None:
        if who not in self.point:
            return None
        return {
            "elo": round(self.point[who], 1),
            "elo_ci95": interval_around(self.point[who], self.draws.get(who, []), 1),
            "component": self.where[who],
        }


def _by_component(where: Mapping[str, int], family: str, names: Sequence[str]) -> list[list[str]]:
    """The contestants whose ``family`` part was rated, by component."""
    found: dict[int, list[str]] = {}
    for name in names:
        if player(family, name) in where:
            found.setdefault(where[player(family, name)], []).append(name)
    return [found[i] for i in sorted(found)]


def _parts(
    name: str,
    per_game: Sequence[Duels],
    fits: Mapping[str, _Fit],
    rng: random.Random,
) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for part in PARTS:
        mine = [
            (d.kind, Item(g.game, name, float((d.deceived) == (part == "deceive"))))
            for g in per_game
            for d in g.found
            if (d.deceiver if part == "deceive" else d.detector) == name
        ]
        who = player(part, name)
        if not mine:
            entry[part] = None
            continue
        entry[part] = {
            **(fits[""].rating(who) or {}),
            "by_kind": {kind: fits[kind].rating(who) for kind in KINDS},
            "duels": len(mine),
            **{f"{kind}_duels": sum(1 for k, _ in mine if k == kind) for kind in KINDS},
            "won": figure([item for _, item in mine], rng),
            "won_by_kind": {
                kind: figure([item for k, item in mine if k == kind], rng) for kind in KINDS
            },
        }
    return entry


def deception_rows(summary: Mapping[str, Any]) -> list[list[str]]:
    """The printed table: contestant, deceive and detect Elo with intervals and
    duels ("–" where a contestant has none); empty without the figures. When
    the duel graph falls apart, each rating is marked with its component
    ("g1", "g2", …): only ratings with the same mark compare."""
    found = summary.get("deception") or {}
    marked = not (found.get("graph") or {}).get("connected", True)
    rows = []
    for name, entry in sorted((found.get("by_contestant") or {}).items()):
        cells = [name]
        for family in PARTS:
            part = entry.get(family)
            text = "–" if not part else f"{part['elo']} {part['elo_ci95']} ({part['duels']})"
            if part and marked:
                text += f" g{part['component'] + 1}"
            cells.append(text)
        rows.append(cells)
    return rows
