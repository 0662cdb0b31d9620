"""The team Plackett–Luce update of Weng and Lin (2011, Algorithm 4), as the
``openskill`` package's ``PlackettLuce`` model computes it with its defaults
(μ₀ = 25, σ₀ = 25/3, β = 25/6, κ = 10⁻⁴, τ = 25/300; no weights, scores,
balance or sigma limit).

Written out here because order-averaged ratings with bootstrap intervals rate
the same games thousands of times, and the package's per-call copying makes
that slow; ``tests/analysis/test_ratings.py`` checks this update against the
package on random matches (ties, teams of several players, several teams).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0

Skill = tuple[float, float]  # (mu, sigma)


def rate_teams(teams: Sequence[Sequence[Skill]], ranks: Sequence[int]) -> list[list[Skill]]:
    """The players' new (mu, sigma) after one game, team by team; a lower rank
    is better and equal ranks are a tie between those teams."""
    # the dynamics factor first: every sigma grows by tau (in variance)
    widened = [[(mu, math.sqrt(sigma * sigma + TAU * TAU)) for mu, sigma in t] for t in teams]
    team_mu = [sum(mu for mu, _ in t) for t in widened]
    team_var = [sum(sigma * sigma for _, sigma in t) for t in widened]
    c = math.sqrt(sum(v + BETA * BETA for v in team_var))
    strength = [math.exp(mu / c) for mu in team_mu]
    k = len(teams)
    # sum_q: strengths of the teams ranked no better than q; a_q: teams tied with q
    sum_q = [sum(strength[s] for s in range(k) if ranks[s] >= ranks[q]) for q in range(k)]
    a_q = [sum(1 for s in range(k) if ranks[s] == ranks[q]) for q in range(k)]
    out: list[list[Skill]] = []
    for i in range(k):
        omega = delta = 0.0
        for q in range(k):
            if ranks[q] > ranks[i]:
                continue
            share = strength[i] / sum_q[q]
            delta += share * (1 - share) / a_q[q]
            omega += ((1 - share) if q == i else -share) / a_q[q]
        omega *= team_var[i] / c
        delta *= team_var[i] / c**2
        delta *= math.sqrt(team_var[i]) / c  # gamma
        out.append(
            [
                (
                    mu + (sigma**2 / team_var[i]) * omega,
                    sigma * math.sqrt(max(1 - (sigma**2 / team_var[i]) * delta, KAPPA)),
                )
                for mu, sigma in widened[i]
            ]
        )
    return out
