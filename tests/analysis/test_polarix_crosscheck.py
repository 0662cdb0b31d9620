"""The game-theoretic rating (Nash averaging, sandbox.analysis.nash) cross-checked
against polarix, an independent equilibrium solver, on the same games
(docs/study-reference.md, "Validity: a game-theoretic cross-check").

polarix solves the meta-game we build from the games for its maximum-entropy
correlated equilibrium by gradient descent on the dual (jax); in a two-player
zero-sum game that equilibrium is the product of the maximum-entropy Nash
mixtures, so its marginals must match our SLSQP mixtures and a contestant's
payoff against the other marginal must match our rating. Tolerance: 2·10⁻³ on
every weight and every rating (polarix stops at a dual residual of 10⁻⁵ and
computes in float32; a weight our solver sets to 0 keeps a few 10⁻⁴ there)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.load import load_games
from sandbox.analysis.nash import game_value, payoff, role_ratings, share, symmetric_ratings
from sandbox.analysis.ratings import matches_of, pairwise
from tests.analysis.builders import KILLER_ROLES, write_transcript

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # never look for an accelerator
if os.environ.get("CI") == "true":  # CI installs the dev extra: a skip would hide a break
    import numpy as np
    import polarix as plx
else:
    np = pytest.importorskip("numpy")
    plx = pytest.importorskip("polarix", reason="polarix comes with the dev extra")

TOLERANCE = 2e-3

# (killer, police, killer side won) × games: a beats b, b beats c, c beats a
# 3 to 1 each (a cycle), and d loses 1 to 3 to a and b, 2 to 2 to c.
MEETINGS = [("a", "b", 3, 1), ("b", "c", 3, 1), ("c", "a", 3, 1), ("a", "d", 3, 1)]
MEETINGS += [("b", "d", 3, 1), ("c", "d", 2, 2)]


def study(folder: Path) -> list[Any]:
    """The meetings as Killer games, the first-named contestant on the killer
    side in half of its wins and half of its losses (sides alternate)."""
    n = 0
    for first, second, won, lost in MEETINGS:
        for k, first_wins in enumerate([True] * won + [False] * lost):
            killer, police = (first, second) if k % 2 == 0 else (second, first)
            killer_wins = first_wins == (killer == first)
            who = {s: killer if r == "killer" else police for s, r in KILLER_ROLES.items()}
            results = {
                s: "win" if (r == "killer") == killer_wins else "lose"
                for s, r in KILLER_ROLES.items()
            }
            write_transcript(
                folder / f"g{n}.jsonl", "killer", KILLER_ROLES, who, [], results, seed=n
            )
            n += 1
    return load_games([folder]).games


def solve(rows: Any, cols: Any, matrix: Any, symmetric: bool) -> tuple[Any, Any]:
    """polarix's equilibrium marginals of the two-player zero-sum game whose row
    payoffs are ``matrix``."""
    m = np.asarray(matrix, dtype=float)
    game = plx.Game(
        payoffs=np.stack([m, -m]),
        actions=(np.asarray(rows), np.asarray(cols)),
        players=("row", "column"),
        symmetry_groups=(0, 0) if symmetric else None,
    )
    found = plx.solve(game, plx.ce_maxent, disable_progress_bar=True)
    x, y = (np.asarray(p, dtype=float) for p in plx.marginals_from_joint(found.joint))
    return x, y


def test_nash_averaging_matches_polarix_on_the_same_games(tmp_path: Path) -> None:
    games = study(tmp_path)
    wins = pairwise(matches_of(games))
    ours = symmetric_ratings(wins)
    players = sorted(ours)
    matrix = payoff(wins, players)
    x, y = solve(players, players, matrix, symmetric=True)
    theirs = np.asarray(matrix) @ y  # each contestant's payoff against the equilibrium
    for i, who in enumerate(players):
        rating, weight = ours[who]
        assert rating == pytest.approx(float(theirs[i]), abs=TOLERANCE), who
        assert weight == pytest.approx(float(x[i]), abs=TOLERANCE), who
    # the case is not trivial: d is rated below the cycle and gets no weight
    assert ours["d"][0] < -0.1 and ours["d"][1] == pytest.approx(0.0, abs=1e-6)


def test_nash_by_role_matches_polarix_on_the_same_games(tmp_path: Path) -> None:
    games = study(tmp_path)
    wins = pairwise(matches_of(games, per_role=True))
    ours = role_ratings(wins)
    rows = sorted(p for p in ours if p.endswith("@killer"))
    cols = sorted(p for p in ours if p.endswith("@police"))
    # a contestant never meets itself: that cell takes the mean of the cells
    # that met (the rule of sandbox.analysis.nash._bipartite)
    cells = {(a, b): share(wins, a, b) for a in rows for b in cols}
    seen = [c - 0.5 for c in cells.values() if c is not None]
    fill = sum(seen) / len(seen)
    matrix = [[fill if cells[(a, b)] is None else cells[(a, b)] - 0.5 for b in cols] for a in rows]
    value = game_value(matrix)
    x, y = solve(rows, cols, matrix, symmetric=False)
    m = np.asarray(matrix)
    for i, who in enumerate(rows):
        assert ours[who][0] == pytest.approx(float((m @ y)[i]) - value, abs=TOLERANCE), who
        assert ours[who][1] == pytest.approx(float(x[i]), abs=TOLERANCE), who
    for j, who in enumerate(cols):
        assert ours[who][0] == pytest.approx(value - float((x @ m)[j]), abs=TOLERANCE), who
        assert ours[who][1] == pytest.approx(float(y[j]), abs=TOLERANCE), who
