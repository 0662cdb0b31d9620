"""Mini-Mafia's model (Costa and Vicente, arXiv 2509.23023), fitted to a study
(issue 39, item 5; docs/study-reference.md, "Mini-Mafia").

The game: four seats, one mafioso (werewolf, killer), one detective (seer,
police), two villagers (civilians); the night is fixed (the mafioso's victim is
a villager, the detective checks the mafioso), so one day of discussion and one
vote decide it: the mafia wins unless the mafioso is voted out. Each game is a
*line-up* (M, D, V): the contestants playing mafioso, detective and villager
(both villager seats one contestant), and y = 1 if the mafia won.

The model: each contestant i has a deception m_i, a disclosure d_i and a
detection v_i = exp(w_i) > 0, and

    logit P(y = 1 | M, D, V) = v_V · (m_M − d_D).

Two directions leave every prediction unchanged (m and d shifted together;
v scaled by c and m, d by 1/c), so the parameters are reported in a fixed
gauge: Σ_i w_i = 0 (the detections' geometric mean is 1) and
Σ_i (m_i + d_i) = 0. The fit is the maximum a posteriori estimate under
independent Normal(0, PRIOR_SD²) priors on every m, d and w — it keeps the
fit finite when a small study separates the outcomes — found by L-BFGS on the
negative log posterior

    Σ_games [log(1 + e^{z_g}) − y_g z_g] + Σ_params θ² / (2·PRIOR_SD²),
    z_g = v_V (m_M − d_D).

Intervals: percentile bootstrap over games (resampled whole, refitted).
Prediction quality: the K-fold cross-validated Brier score (games shuffled
with a seeded generator, fold k = every K-th of them, each fold predicted by
the fit on the others) against three baselines fitted on the same folds: a
coin (p = ½), the base rate (the training games' mafia win share) and the
mafioso's own win share ((wins + 1)/(games + 2), its games as mafioso). The
reduction is 1 − Brier(model)/Brier(baseline).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED, percentile_interval
from sandbox.deduction.tables import RoleTable, load_table
from sandbox.transcript import EventRow, Transcript

PRIOR_SD = 2.0
SAMPLES = 200  # bootstrap refits
FOLDS = 5

# Mini-Mafia's three parts, read from the variant's role table (its hidden role,
# its checker and its plain role): the paper's mafioso, detective and villager,
# here "town" for the last (the seats with no power of their own).
PARTS = ("mafioso", "detective", "town")


def _part(table: RoleTable, role: str) -> str:
    if role in table.hidden:
        return "mafioso"
    if table.checker and role == table.checker:
        return "detective"
    if table.plain and role == table.plain:
        return "town"
    return "other"


@dataclass(frozen=True)
class Lineup:
    mafioso: str
    detective: str
    town: str
    mafia_won: bool
    game: str = ""


def lineup_of(game: Transcript[EventRow]) -> Lineup | None:
    """The game's line-up; None unless it is a Mini-Mafia game (one mafioso,
    one detective, villagers of one contestant, a win or a loss)."""
    try:
        table = load_table(game.variant)
    except ValueError:
        return None  # a variant without a role table has no Mini-Mafia reading
    seats: dict[str, list[int]] = {}
    for seat, role in game.roles.items():
        seats.setdefault(_part(table, str(role)), []).append(seat)
    if set(seats) != set(PARTS):
        return None
    if len(seats["mafioso"]) != 1 or len(seats["detective"]) != 1:
        return None
    who = game.contestants
    town = {who.get(s, "?") for s in seats["town"]}
    result = game.results.get(seats["mafioso"][0])
    if len(town) != 1 or result not in ("win", "lose"):
        return None
    return Lineup(
        who.get(seats["mafioso"][0], "?"),
        who.get(seats["detective"][0], "?"),
        town.pop(),
        result == "win",
        game.game_id,
    )


def _index(lineups: Sequence[Lineup], names: Sequence[str]) -> tuple[Any, Any, Any, Any]:
    import numpy as np

    at = {n: i for i, n in enumerate(names)}
    m = np.array([at[x.mafioso] for x in lineups], dtype=int)
    d = np.array([at[x.detective] for x in lineups], dtype=int)
    v = np.array([at[x.town] for x in lineups], dtype=int)
    y = np.array([float(x.mafia_won) for x in lineups])
    return m, d, v, y


def _gauge(theta: Any, n: int) -> Any:
    """The parameters in the fixed gauge (the module text); linear and
    symmetric, so it also maps a gradient on the gauge to the raw one."""
    import numpy as np

    md, w = theta[: 2 * n], theta[2 * n :]
    return np.concatenate([md - md.mean(), w - w.mean()])


def fit(lineups: Sequence[Lineup], names: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """contestant -> (m, d, v) at the MAP (the module text)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit

    n = len(names)
    mi, di, vi, y = _index(lineups, names)

    def objective(raw: Any) -> tuple[float, Any]:
        theta = _gauge(raw, n)
        m, d, w = theta[:n], theta[n : 2 * n], theta[2 * n :]
        v = np.exp(w[vi])
        gap = m[mi] - d[di]
        z = v * gap
        nll = float(np.sum(np.logaddexp(0.0, z) - y * z))
        r = expit(z) - y  # d nll / d z (expit: no overflow for large |z|)
        grad = np.zeros(3 * n)
        np.add.at(grad, mi, r * v)
        np.add.at(grad, n + di, -r * v)
        np.add.at(grad, 2 * n + vi, r * z)  # d z / d w_V = z
        prior = float(theta @ theta) / (2 * PRIOR_SD**2)
        return nll + prior, _gauge(grad + theta / PRIOR_SD**2, n)

    found = minimize(objective, np.zeros(3 * n), jac=True, method="L-BFGS-B")
    theta = _gauge(found.x, n)
    return {
        name: (float(theta[i]), float(theta[n + i]), math.exp(float(theta[2 * n + i])))
        for i, name in enumerate(names)
    }


def predict(params: dict[str, tuple[float, float, float]], lineup: Lineup) -> float:
    """P(mafia wins) for a line-up; a contestant the fit never saw sits at the
    prior's centre (m = d = 0, v = 1)."""
    m = params.get(lineup.mafioso, (0.0, 0.0, 1.0))[0]
    d = params.get(lineup.detective, (0.0, 0.0, 1.0))[1]
    v = params.get(lineup.town, (0.0, 0.0, 1.0))[2]
    z = v * (m - d)
    return 1.0 / (1.0 + math.exp(-z))


def brier(pairs: Sequence[tuple[float, bool]]) -> float:
    """Mean of (p − y)² over (forecast, outcome) pairs."""
    return sum((p - float(y)) ** 2 for p, y in pairs) / len(pairs)


def cross_validated(
    lineups: Sequence[Lineup], folds: int = FOLDS, seed: int = BOOTSTRAP_SEED
) -> dict[str, Any] | None:
    """K-fold cross-validated Brier scores of the model and its baselines, and
    the model's reduction against each (the module text); None with fewer games
    than folds."""
    if len(lineups) < folds:
        return None
    order = list(range(len(lineups)))
    random.Random(seed).shuffle(order)
    forecasts: dict[str, list[tuple[float, bool]]] = {
        "model": [],
        "coin": [],
        "base_rate": [],
        "mafioso_rate": [],
    }
    for k in range(folds):
        held = [lineups[i] for j, i in enumerate(order) if j % folds == k]
        train = [lineups[i] for j, i in enumerate(order) if j % folds != k]
        names = sorted({n for x in train for n in (x.mafioso, x.detective, x.town)})
        params = fit(train, names)
        base = sum(x.mafia_won for x in train) / len(train)
        for x in held:
            mine = [t.mafia_won for t in train if t.mafioso == x.mafioso]
            forecasts["model"].append((predict(params, x), x.mafia_won))
            forecasts["coin"].append((0.5, x.mafia_won))
            forecasts["base_rate"].append((base, x.mafia_won))
            forecasts["mafioso_rate"].append(((sum(mine) + 1) / (len(mine) + 2), x.mafia_won))
    scores = {name: brier(pairs) for name, pairs in forecasts.items()}
    return {
        "folds": folds,
        "games": len(lineups),
        "brier": {name: round(score, 4) for name, score in scores.items()},
        "reduction": {
            name: round(1 - scores["model"] / score, 4) if score else None
            for name, score in scores.items()
            if name != "model"
        },
    }


def fit_with_intervals(
    lineups: Sequence[Lineup], seed: int = BOOTSTRAP_SEED, samples: int = SAMPLES
) -> dict[str, dict[str, Any]]:
    """contestant -> {m, d, v, each with a 95% bootstrap interval, games as
    each role}."""
    names = sorted({n for x in lineups for n in (x.mafioso, x.detective, x.town)})
    point = fit(lineups, names)
    rng = random.Random(seed + 5)
    draws: dict[str, list[tuple[float, float, float]]] = {n: [] for n in names}
    for _ in range(samples):
        sample = [lineups[rng.randrange(len(lineups))] for _ in lineups]
        for name, values in fit(sample, names).items():
            draws[name].append(values)
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        row: dict[str, Any] = {}
        for k, key in enumerate(("m", "d", "v")):
            ci = percentile_interval([values[k] for values in draws[name]])
            row[key] = round(point[name][k], 4)
            row[f"{key}_ci95"] = None if ci is None else [round(ci[0], 4), round(ci[1], 4)]
        row["games"] = {
            "mafioso": sum(x.mafioso == name for x in lineups),
            "detective": sum(x.detective == name for x in lineups),
            "town": sum(x.town == name for x in lineups),
        }
        out[name] = row
    return out


def minimafia_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any] | None:
    """The fit with intervals and the cross-validated Brier scores, over the
    games that are Mini-Mafia games; None when there are none."""
    lineups = [x for x in (lineup_of(g) for g in games) if x is not None]
    if not lineups:
        return None
    return {
        "games": len(lineups),
        "by_contestant": fit_with_intervals(lineups, seed, samples or SAMPLES),
        "cross_validation": cross_validated(lineups, FOLDS, seed),
    }
