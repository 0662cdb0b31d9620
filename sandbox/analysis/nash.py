"""Nash averaging (Balduzzi, Tuyls, Pérolat and Graepel, "Re-evaluating
evaluation", 2018): a rating that cannot be raised by beating one opponent
many times and that rates a cycle (A beats B beats C beats A) as a tie.

The meta-game: two meta-players each pick a contestant; the row pick earns the
payoff ``P[a][b]`` = a's share of its pairwise wins over b minus ½ (an
antisymmetric matrix; pairs that never met count 0). Its maximum-entropy Nash
equilibrium p* is unique; a contestant's rating is its payoff against p*,
``(P p*)_a``: 0 for every contestant the equilibrium plays, below 0 for one it
need not play (beaten by the mixture). Per role, each pair of sides is its own
two-player zero-sum game (rows: contestants on one side, columns: on the
other); a player's rating is its payoff against the other side's
maximum-entropy equilibrium mixture relative to the game's value (so a side's
built-in advantage is taken out), averaged over the sides it met.
Intervals: percentile bootstrap over games, the same solver on every resample.

Needs scipy (the ``study`` extra); without it the summary says so instead.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.analysis.ratings import Match, interval_around, pairwise, tidy

NASH_SAMPLES = 200  # bootstrap resamples of the Nash ratings
SUPPORT_FLOOR = 1e-7  # equilibrium weights below this are read as 0 (solver noise)

Wins = Mapping[tuple[str, str], float]


def scipy_missing() -> str | None:
    """Why Nash averaging cannot run here, or None when it can."""
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        return "Nash averaging needs scipy, from the 'study' extra: pip install -e '.[study]'"
    return None


def share(wins: Wins, a: str, b: str) -> float | None:
    """a's share of its pairwise wins over b (draws count half); None if they never met."""
    met = wins.get((a, b), 0.0) + wins.get((b, a), 0.0)
    return wins.get((a, b), 0.0) / met if met else None


def payoff(wins: Wins, players: Sequence[str]) -> list[list[float]]:
    """The antisymmetric payoff P[a][b] = share(a, b) − ½ (0 where they never met)."""
    rows = []
    for a in players:
        found = [None if a == b else share(wins, a, b) for b in players]
        rows.append([0.0 if s is None else s - 0.5 for s in found])
    return rows


def max_entropy_mixture(matrix: Sequence[Sequence[float]], value: float) -> list[float]:
    """The row player's maximum-entropy optimal mixture x of the zero-sum game
    ``matrix`` (row payoffs) with game value ``value``: maximise −Σ xᵢ ln xᵢ
    subject to Σ x = 1, x ≥ 0 and xᵀ·matrix ≥ value in every column. The optimal
    set is a polytope and entropy is strictly concave on it, so x is unique."""
    import numpy as np
    from scipy.optimize import minimize

    m = np.asarray(matrix, dtype=float)
    n = m.shape[0]
    if n == 1:
        return [1.0]

    def neg_entropy(x: Any) -> float:
        safe = np.clip(x, 1e-300, None)
        return float(np.sum(safe * np.log(safe)))

    def gradient(x: Any) -> Any:
        return np.log(np.clip(x, 1e-12, None)) + 1.0

    # the value is met to 1e-9: the LP's value itself carries that much noise
    constraints = [
        {"type": "eq", "fun": lambda x: np.sum(x) - 1.0, "jac": lambda x: np.ones(n)},
        {"type": "ineq", "fun": lambda x: m.T @ x - value + 1e-9, "jac": lambda x: m.T},
    ]
    found = minimize(
        neg_entropy,
        np.full(n, 1.0 / n),
        jac=gradient,
        bounds=[(0.0, 1.0)] * n,
        constraints=constraints,
        method="SLSQP",
        options={"ftol": 1e-13, "maxiter": 1000},
    )
    x = np.where(found.x < SUPPORT_FLOOR, 0.0, found.x)
    return [float(v) for v in x / np.sum(x)]


def game_value(matrix: Sequence[Sequence[float]]) -> float:
    """The value of the zero-sum game (the row player maximises): max over
    mixtures x of min over columns of xᵀ·matrix. Shifted to positive payoffs
    M + s, the column player's problem is the linear programme max Σw subject
    to (M + s)·w ≤ 1, w ≥ 0, whose optimum is 1/(value + s); it is solved here
    by the simplex method (Bland's rule, so it cannot cycle) — a few pivots for
    the small games of a study, where a general solver's set-up would dominate."""
    shift = 1.0 - min(min(row) for row in matrix)
    rows, cols = len(matrix), len(matrix[0])
    # tableau: rows of [a_1..a_cols, slack_1..slack_rows | rhs]; last row is −objective
    table = [
        [matrix[i][j] + shift for j in range(cols)]
        + [1.0 if k == i else 0.0 for k in range(rows)]
        + [1.0]
        for i in range(rows)
    ]
    table.append([-1.0] * cols + [0.0] * rows + [0.0])
    basis = [cols + i for i in range(rows)]
    while True:
        entering = next((j for j in range(cols + rows) if table[-1][j] < -1e-12), None)
        if entering is None:
            break
        ratios = [
            (table[i][-1] / table[i][entering], basis[i], i)
            for i in range(rows)
            if table[i][entering] > 1e-12
        ]
        _, _, leaving = min(ratios)  # smallest ratio, ties by lowest basic variable
        pivot = table[leaving][entering]
        table[leaving] = [v / pivot for v in table[leaving]]
        for i in range(rows + 1):
            if i != leaving and table[i][entering] != 0.0:
                factor = table[i][entering]
                table[i] = [v - factor * p for v, p in zip(table[i], table[leaving], strict=True)]
        basis[leaving] = entering
    return 1.0 / table[-1][-1] - shift


def symmetric_ratings(wins: Wins) -> dict[str, tuple[float, float]]:
    """player -> (Nash-averaged rating (P p*)_a, its weight p*_a) over every
    player that met another. The game is symmetric, so its value is 0 and both
    meta-players share the same maximum-entropy mixture."""
    players = sorted({p for pair in wins for p in pair})
    if len(players) < 2:
        return {}
    matrix = payoff(wins, players)
    # the row player's optimal set {x: xᵀP ≥ 0} is the column player's {y: P y ≤ 0}
    mixture = max_entropy_mixture(matrix, 0.0)
    return {
        a: (sum(v * w for v, w in zip(matrix[i], mixture, strict=True)), mixture[i])
        for i, a in enumerate(players)
    }


def split_role(player: str) -> tuple[str, str]:
    """'gpt@killer' -> ('gpt', 'killer')."""
    who, _, side = player.rpartition("@")
    return who, side


def role_ratings(wins: Wins) -> dict[str, tuple[float, float]]:
    """player 'contestant@side' -> (rating, weight), each pair of sides played
    as its own zero-sum game (see the module text); a player's figures are the
    means over the pairs of sides it met."""
    players = sorted({p for pair in wins for p in pair})
    sides = sorted({split_role(p)[1] for p in players})
    found: dict[str, list[tuple[float, float]]] = {}
    for i, first in enumerate(sides):
        for second in sides[i + 1 :]:
            rows = [p for p in players if split_role(p)[1] == first]
            cols = [p for p in players if split_role(p)[1] == second]
            for player, figures in _bipartite(wins, rows, cols).items():
                found.setdefault(player, []).append(figures)
    return {
        p: (sum(r for r, _ in f) / len(f), sum(w for _, w in f) / len(f))
        for p, f in sorted(found.items())
    }


def _bipartite(
    wins: Wins, rows: Sequence[str], cols: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """One pair of sides: rows' payoff M[a][b] = share(a, b) − ½; a pair that
    never met takes the mean of the pairs that did (no evidence either way
    beyond the sides' usual balance)."""
    cells = {(a, b): share(wins, a, b) for a in rows for b in cols}
    seen = [s - 0.5 for s in cells.values() if s is not None]
    rows = [a for a in rows if any(cells[(a, b)] is not None for b in cols)]
    cols = [b for b in cols if any(cells[(a, b)] is not None for a in rows)]
    if not rows or not cols:
        return {}
    fill = sum(seen) / len(seen)
    matrix = [[_centred(cells[(a, b)], fill) for b in cols] for a in rows]
    value = game_value(matrix)
    x = max_entropy_mixture(matrix, value)
    flipped = [[-matrix[i][j] for i in range(len(rows))] for j in range(len(cols))]
    y = max_entropy_mixture(flipped, -value)
    out: dict[str, tuple[float, float]] = {}
    for i, a in enumerate(rows):
        out[a] = (sum(matrix[i][j] * y[j] for j in range(len(cols))) - value, x[i])
    for j, b in enumerate(cols):
        out[b] = (value - sum(matrix[i][j] * x[i] for i in range(len(rows))), y[j])
    return out


def _centred(found: float | None, fill: float) -> float:
    return fill if found is None else found - 0.5


def nash_table(
    matches: Sequence[Match], per_role: bool, seed: int, samples: int = 0
) -> dict[str, dict[str, Any]]:
    """player -> {games, nash, nash_ci95, weight}: the Nash-averaged rating on
    the full set and its 95% percentile bootstrap interval over games (whole
    games resampled, each resample solved afresh; widened to the point)."""
    matches = sorted(matches, key=Match.sort_key)
    solve = role_ratings if per_role else symmetric_ratings
    point = solve(pairwise(matches))
    rng = random.Random(seed + 2)
    draws: dict[str, list[float]] = {}
    for _ in range(samples or NASH_SAMPLES):
        sample = [matches[rng.randrange(len(matches))] for _ in matches]
        for player, (rating, _) in solve(pairwise(sample)).items():
            draws.setdefault(player, []).append(rating)
    return {
        player: {
            "games": sum(1 for m in matches if any(player in t for t in m.teams)),
            "nash": tidy(rating, 4),
            "nash_ci95": interval_around(rating, draws.get(player, []), 4),
            "weight": tidy(weight, 4),
        }
        for player, (rating, weight) in sorted(point.items())
    }


def nash_summary(
    matches: Sequence[Match],
    role_matches: Sequence[Match],
    seed: int,
    samples: int = 0,
    roles: bool = True,
) -> dict[str, Any]:
    """``by_contestant`` and (with ``roles``) ``by_role`` Nash tables, or
    ``unavailable`` saying why."""
    missing = scipy_missing()
    if missing is not None:
        return {"unavailable": missing}
    found = {"by_contestant": nash_table(matches, False, seed, samples)}
    if roles:
        found["by_role"] = nash_table(role_matches, True, seed, samples)
    return found
