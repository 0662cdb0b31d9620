"""Ratings with uncertainty: OpenSkill (team Plackett–Luce) and Bradley–Terry/Elo.

A *match* is one finished game seen as teams: each side is a team made of the
contestants that played it; winning sides rank first, the others second, and a
game nobody won ranks every side equal. Per-role ratings use the player
``contestant@side`` so that, say, a model's killer play and its police play are
rated apart.

Every figure is a function of the *set* of games, never of when they were
played: games are first put in a canonical order (:meth:`Match.sort_key`),
and OpenSkill — which depends on the order it sees games in — is the
mean over ``ORDERS`` seeded random orders of them. Intervals: percentile
bootstrap over games (resampled whole games), each resample rated by the same
estimator as the point (for OpenSkill: averaged over ``ORDERS`` orders too),
widened to the point if it falls outside (docs/study-reference.md, "Ratings").
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED, percentile_interval
from sandbox.analysis.plackett_luce import MU, SIGMA, rate_teams
from sandbox.transcript import EventRow, Transcript

BOOTSTRAP_SAMPLES = 200
ELO_BASE = 1500.0
ELO_SCALE = 400.0


# OpenSkill is averaged over this many random orders of the games (point and
# every bootstrap resample alike), drawn from random.Random(seed).
ORDERS = 10


@dataclass(frozen=True)
class Match:
    teams: tuple[tuple[str, ...], ...]  # players per side
    ranks: tuple[int, ...]  # 1 = won; equal ranks = a draw between them
    key: str = ""  # the game's identity (study, cell, seed), else its file name

    def sort_key(self) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...], str]:
        """Games sort by what happened in them (teams, then ranks), identity last:
        matches alike in both are interchangeable, so any figure computed from
        this order depends on the games' outcomes only — not on start times,
        file names or the order the files were read in."""
        return (self.teams, self.ranks, self.key)


def match_of(game: Transcript[EventRow], per_role: bool = False) -> Match | None:
    """The game as teams; None if it is unfinished or one player holds every side."""
    if game.outcome is None:
        return None
    sides, who, results = game.sides, game.contestants, game.results
    teams: dict[str, set[str]] = {}
    won: dict[str, bool] = {}
    for seat, side in sides.items():
        player = f"{who.get(seat, '?')}@{side}" if per_role else who.get(seat, "?")
        teams.setdefault(side, set()).add(player)
        won[side] = won.get(side, False) or results.get(seat) == "win"
    names = sorted(teams)
    if len({p for side in names for p in teams[side]}) < 2:
        return None
    anyone_won = any(won.values())
    ranks = tuple(1 if (won[s] or not anyone_won) else 2 for s in names)
    return Match(tuple(tuple(sorted(teams[s])) for s in names), ranks, game.game_id)


def matches_of(games: Sequence[Transcript[EventRow]], per_role: bool = False) -> list[Match]:
    """The games as matches in canonical order (never by start time: two runs
    of one study give the same list)."""
    found = (match_of(g, per_role) for g in games)
    return sorted((m for m in found if m is not None), key=Match.sort_key)


# ------------------------------------------------------------------ OpenSkill


def openskill_ratings(matches: Sequence[Match]) -> dict[str, tuple[float, float]]:
    """player -> (mu, sigma) after rating the matches in order (openskill's
    PlackettLuce with its defaults, mu 25, sigma 25/3; the same update, written
    out in sandbox.analysis.plackett_luce). A player on two teams of one game
    takes the mean of its two updates."""
    current: dict[str, tuple[float, float]] = {}
    for match in matches:
        teams = [[current.get(p, (MU, SIGMA)) for p in team] for team in match.teams]
        rated = rate_teams(teams, match.ranks)
        updates: dict[str, list[tuple[float, float]]] = {}
        for team, new in zip(match.teams, rated, strict=True):
            for player, skill in zip(team, new, strict=True):
                updates.setdefault(player, []).append(skill)
        for player, skills in updates.items():
            mu = sum(m for m, _ in skills) / len(skills)
            sigma = sum(s for _, s in skills) / len(skills)
            current[player] = (mu, sigma)
    return current


def openskill_averaged(
    matches: Sequence[Match], rng: random.Random, orders: int = ORDERS
) -> dict[str, tuple[float, float]]:
    """player -> (mean mu, mean sigma) over ``orders`` random orders of the
    matches, each order drawn from ``rng`` after putting them in canonical order
    (so the result depends on the set of matches and the generator's state only)."""
    canonical = sorted(matches, key=Match.sort_key)
    sums: dict[str, list[float]] = {}
    for _ in range(orders):
        shuffled = list(canonical)
        rng.shuffle(shuffled)
        for player, (mu, sigma) in openskill_ratings(shuffled).items():
            cell = sums.setdefault(player, [0.0, 0.0])
            cell[0] += mu
            cell[1] += sigma
    return {p: (mu / orders, sigma / orders) for p, (mu, sigma) in sums.items()}


# -------------------------------------------------------------- Bradley–Terry


def pairwise(matches: Sequence[Match]) -> dict[tuple[str, str], float]:
    """(a, b) -> wins of a over b: each player of a better-ranked team beats each
    player of a worse-ranked one; equal ranks give each half a win."""
    wins: dict[tuple[str, str], float] = {}
    for match in matches:
        for i, team_a in enumerate(match.teams):
            for j, team_b in enumerate(match.teams):
                if j <= i:
                    continue
                for a in team_a:
                    for b in team_b:
                        if a == b:
                            continue
                        ra, rb = match.ranks[i], match.ranks[j]
                        share = 1.0 if ra < rb else 0.0 if ra > rb else 0.5
                        wins[(a, b)] = wins.get((a, b), 0.0) + share
                        wins[(b, a)] = wins.get((b, a), 0.0) + 1.0 - share
    return wins


def bradley_terry(
    wins: Mapping[tuple[str, str], float], prior: float = 0.5, iterations: int = 2000
) -> dict[str, float]:
    """Elo-scaled Bradley–Terry strengths (mean 1500; 400 points = 10:1 odds),
    fitted by Hunter's MM iteration. ``prior`` adds that many wins each way to
    every pair that met, so an unbeaten player gets a finite rating."""
    players = sorted({p for pair in wins for p in pair})
    if not players:
        return {}
    won = dict(wins)
    for a, b in list(wins):
        won[(a, b)] = won.get((a, b), 0.0) + prior
    totals = dict.fromkeys(players, 0.0)
    met: dict[str, dict[str, float]] = {i: {} for i in players}
    for (a, b), value in won.items():
        totals[a] += value
        met[a][b] = met[a].get(b, 0.0) + value
        met[b][a] = met[b].get(a, 0.0) + value
    strength = dict.fromkeys(players, 1.0)
    for _ in range(iterations):
        before = dict(strength)
        # Gauss–Seidel order (each update uses the ones just made): the plain
        # Jacobi form oscillates on bipartite pairings such as killer vs police.
        for i in players:
            denom = sum(n / (strength[i] + strength[j]) for j, n in met[i].items())
            strength[i] = max(totals[i] / denom, 1e-12) if denom else strength[i]
        mean_log = sum(math.log(v) for v in strength.values()) / len(strength)
        strength = {p: v / math.exp(mean_log) for p, v in strength.items()}
        # converged when no strength moves by more than a billionth (relative)
        if max(abs(math.log(strength[p] / before[p])) for p in players) < 1e-9:
            break
    return {p: ELO_BASE + ELO_SCALE * math.log10(v) for p, v in strength.items()}


# ------------------------------------------------------------------ together


def rate(
    games: Sequence[Transcript[EventRow]],
    per_role: bool = False,
    seed: int = BOOTSTRAP_SEED,
    samples: int = 0,
) -> dict[str, dict[str, Any]]:
    """player -> OpenSkill mu/sigma/ordinal and Bradley–Terry Elo, each with a
    95% bootstrap interval over games (``samples`` resamples; 0 = the default)."""
    return rate_matches(matches_of(games, per_role), seed, samples)


Draws = dict[str, list[float]]


def bootstrap(
    matches: Sequence[Match], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> tuple[dict[str, tuple[float, float]], dict[str, float], Draws, Draws]:
    """The points (order-averaged OpenSkill, Bradley–Terry Elo) on the full set
    and each player's bootstrap draws of mu and of Elo: ``samples`` resamples
    of whole games (0 = the default), each rated by the same estimators."""
    matches = sorted(matches, key=Match.sort_key)
    skill = openskill_averaged(matches, random.Random(seed))
    elo = bradley_terry(pairwise(matches))
    rng = random.Random(seed + 1)
    skill_draws: Draws = {}
    elo_draws: Draws = {}
    for _ in range(samples or BOOTSTRAP_SAMPLES):
        sample = [matches[rng.randrange(len(matches))] for _ in matches]
        for player, (mu, _) in openskill_averaged(sample, rng).items():
            skill_draws.setdefault(player, []).append(mu)
        for player, value in bradley_terry(pairwise(sample)).items():
            elo_draws.setdefault(player, []).append(value)
    return skill, elo, skill_draws, elo_draws


def rate_matches(
    matches: Sequence[Match], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, dict[str, Any]]:
    """:func:`rate` of matches given directly; their order does not matter."""
    if not matches:
        return {}
    skill, elo, skill_draws, elo_draws = bootstrap(matches, seed, samples)
    out: dict[str, dict[str, Any]] = {}
    for player in sorted(skill):
        mu, sigma = skill[player]
        out[player] = {
            "games": sum(1 for m in matches if any(player in t for t in m.teams)),
            "openskill_mu": round(mu, 3),
            "openskill_sigma": round(sigma, 3),
            "openskill_ordinal": round(mu - 3 * sigma, 3),
            "openskill_mu_ci95": interval_around(mu, skill_draws.get(player, [])),
            "elo": round(elo.get(player, ELO_BASE), 1),
            "elo_ci95": interval_around(elo.get(player, ELO_BASE), elo_draws.get(player, []), 1),
        }
    return out


def interval_around(point: float, draws: Sequence[float], digits: int = 3) -> list[float] | None:
    """The 95% percentile interval of ``draws``, widened to ``point`` should the
    point fall outside it, rounded; None without draws. So the reported
    interval always holds the reported point (tests/analysis/test_ratings.py
    counts how rarely the widening is needed)."""
    found = percentile_interval(draws)
    if found is None:
        return None
    low, high = min(found[0], point), max(found[1], point)
    return [tidy(low, digits), tidy(high, digits)]


def tidy(value: float, digits: int) -> float:
    """``value`` rounded, with no negative zero (-0.0 reads as a loss)."""
    return round(value, digits) + 0.0
