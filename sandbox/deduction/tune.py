"""Choosing the likelihood parameters by the belief's Brier score on recorded
games (issue 37, item 1): a proper scoring rule of what the weights do to the
belief, where :mod:`.fit`'s frequency ratios describe each behaviour alone.

**The objective.** At each vote of an honest seat (the moments
``bench_reference.py --calibration`` scores), the seat's belief gives each
living other seat whose role it does not know a chance of being hidden; the
score of that vote is the mean of ``(P(hidden) - [truly hidden])²`` over those
seats, and the objective is the mean over every vote of every game (0 is a
certain right belief; a flat guess at the table's share of hidden seats scores
about ``share * (1 - share)``). The belief is the bots' own: a
:class:`~sandbox.deduction.mind.Mind` at the level given, fed each view through
the variant's own ``think`` (what the bot does before each decision), so
forgetting, the words read, ``trust`` and the tempering of repeated accusations
(``ECHO``) are all as in play.

**Folding once.** Every factor of the model weighs one parameter or none, and
a mind weighs a factor's log times its evidence weight ``w`` (trust, echo), so
an exact belief's log weight of an assignment ``a`` is linear in the logs of
the parameters::

    log weight(a) = sum over parameters k of  C[a, k] * log(theta_k),
    C[a, k] = sum of w over the evidence weighed so far whose factor at a is theta_k

:func:`fold` reads ``C`` off once per vote (one mind per parameter, that
parameter at ``e^-1`` and the rest at 1: its log weights are ``-C[:, k]``),
merges assignments with the same ``C`` row and the same hidden seats among
those scored (adding ``log`` of their number), and :func:`score` then weighs
any parameter set by a matrix product, without replaying a game. Exact beliefs
only (Werewolf's 8 seats, Killer's 12); a sampled belief raises.

**The search** (:func:`search`): coordinate descent over :data:`GRID` (each
parameter in turn set to the grid value scoring best with the others held,
ties kept at the current value, so evidence that never occurs keeps its
hand-set weight), alternated with a global temperature ``tau`` over
:data:`TEMPERATURES` (every ``log(theta_k)`` that tells assignments apart at
some vote times ``tau``, clipped to the grid's range: the belief's overall
confidence, which multiplying dependent evidence as if independent
overstates), until a round changes
nothing or :data:`ROUNDS` rounds have passed. The result is a plain set of
weights in [``GRID[-1]``, 1] (the temperature folded in), in behaviour.toml's
format. Pure: no I/O; the caller plays the games.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from sandbox.core.variant import SeatView
from sandbox.deduction.likelihood import Behaviour
from sandbox.deduction.mind import Level, Mind
from sandbox.deduction.tables import RoleTable

NAMES = tuple(f.name for f in fields(Behaviour))
# The weights a parameter may take (1: the evidence tells nothing), about
# evenly spaced in log: log(theta) from 0 to about -6.9.
GRID = (1.0, 0.85, 0.7, 0.55, 0.4, 0.3, 0.2, 0.14, 0.1, 0.07, 0.05, 0.03, 0.02, 0.01, 0.005, 0.001)
TEMPERATURES = (0.5, 0.7, 0.85, 1.0, 1.2, 1.5)
ROUNDS = 6
UNIT = math.exp(-1.0)  # a probe parameter's weight: its log is -1

Think = Callable[[Mind, SeatView], None]


@dataclass(frozen=True)
class Watched:
    """One game as its honest seats saw it: the true roles (seat -> role), and
    for each watched seat the views it decided its votes on, in order."""

    roles: Mapping[int, str]
    votes: Mapping[int, Sequence[SeatView]]


@dataclass(frozen=True)
class Point:
    """One vote, folded: per distinct assignment class, its parameter counts
    ``counts`` (classes x parameters), the log of how many assignments it
    holds ``size``, and which scored seats it makes hidden ``hidden``
    (classes x scored seats); ``truth``: which scored seats are hidden."""

    day: int
    counts: npt.NDArray[np.float64]
    size: npt.NDArray[np.float64]
    hidden: npt.NDArray[np.float64]
    truth: npt.NDArray[np.float64]


@dataclass(frozen=True)
class Tuned:
    """The search's result: the weights chosen and the score of each round."""

    behaviour: Behaviour
    score: float
    start: float
    trail: tuple[str, ...]  # one line per change ("said_false_honest 0.6 -> 0.3: 0.1520")


def fold(
    games: Iterable[Watched],
    table: RoleTable,
    think: Think,
    level: int,
    levels: Mapping[int, Level],
) -> list[Point]:
    """Every vote of every watched seat, folded (the module's docstring)."""
    out: list[Point] = []
    probes = [_probe_table(table, k) for k in range(len(NAMES))]
    for game in games:
        hidden_seats = {s for s, r in game.roles.items() if r in table.hidden}
        for seat, views in game.votes.items():
            minds = [Mind(t, level, seat, levels=levels) for t in probes]
            for view in views:
                for mind in minds:
                    think(mind, view)
                point = _point(minds, view, hidden_seats, table)
                if point is not None:
                    out.append(point)
    return out


def _probe_table(table: RoleTable, k: int) -> RoleTable:
    """``table`` with every parameter at 1 but the k-th, at ``e^-1``."""
    values = {name: (UNIT if i == k else 1.0) for i, name in enumerate(NAMES)}
    return dataclasses.replace(table, behaviour=values)


def _point(
    minds: Sequence[Mind], view: SeatView, hidden_seats: set[int], table: RoleTable
) -> Point | None:
    first = minds[0]
    assert first.belief is not None, "think must start the mind"
    living = view.public.get("living", [])
    scored = [s for s in living if s != view.seat and s not in first.known]
    if not scored:
        return None
    columns = []
    for mind in minds:
        belief = mind.belief
        assert belief is not None
        if not belief.exact:
            raise ValueError("a sampled belief cannot be folded: tune needs exact beliefs")
        columns.append(-belief._logw)  # the probe's log weights: -C[:, k] (docstring)
    held = first.belief
    rows = held._rows  # the same assignments, in the same order, in every probe
    hidden_roles = np.array([r in table.hidden for r in held.space.roles])
    index = {s: i for i, s in enumerate(held.space.seats)}
    marks = hidden_roles[rows[:, [index[s] for s in scored]]].astype(np.float64)
    counts = np.stack(columns, axis=1)
    keys = np.concatenate([np.round(counts, 9), marks], axis=1)
    unique, sizes = np.unique(keys, axis=0, return_counts=True)
    width = counts.shape[1]
    truth = np.array([float(s in hidden_seats) for s in scored])
    return Point(
        int(view.public.get("day", 0)),
        unique[:, :width].copy(),
        np.log(sizes.astype(np.float64)),
        unique[:, width:].copy(),
        truth,
    )


def logs(b: Behaviour) -> npt.NDArray[np.float64]:
    """The parameters' logs, in :data:`NAMES` order."""
    return np.array([math.log(getattr(b, name)) for name in NAMES])


def brier(point: Point, theta: npt.NDArray[np.float64]) -> float:
    """One vote's mean Brier score of P(hidden) under the logs ``theta``."""
    logw = point.counts @ theta + point.size
    w = np.exp(logw - logw.max())
    p = (w @ point.hidden) / w.sum()
    return float(np.mean((p - point.truth) ** 2))


def score(points: Sequence[Point], theta: npt.NDArray[np.float64]) -> float:
    """The mean over ``points`` of each vote's Brier score."""
    if not points:
        raise ValueError("no vote to score")
    return sum(brier(p, theta) for p in points) / len(points)


def by_day(points: Sequence[Point], theta: npt.NDArray[np.float64]) -> dict[int, tuple[float, int]]:
    """day -> (the mean Brier score of that day's votes, how many)."""
    days: dict[int, list[float]] = {}
    for p in points:
        days.setdefault(p.day, []).append(brier(p, theta))
    return {d: (sum(v) / len(v), len(v)) for d, v in sorted(days.items())}


def flat(points: Sequence[Point]) -> float:
    """The Brier score of no deduction: every scored seat at the mean truth."""
    share = sum(float(p.truth.mean()) for p in points) / max(1, len(points))
    return sum(float(np.mean((share - p.truth) ** 2)) for p in points) / max(1, len(points))


def search(points: Sequence[Point], start: Behaviour, fixed: Collection[str] = ()) -> Tuned:
    """The weights minimising :func:`score` on ``points`` from ``start``
    (coordinate descent and a global temperature; the module's docstring);
    the parameters named in ``fixed`` keep their values."""
    unknown = set(fixed) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown behaviour parameters {sorted(unknown)}")
    grid = np.log(np.array(GRID))
    low = float(grid.min())
    free = np.array([name not in fixed for name in NAMES])
    weighed = _weighed(points) & free
    theta = logs(start)
    best = score(points, theta)
    begun = best
    trail: list[str] = []
    for _ in range(ROUNDS):
        moved = False
        for k, name in enumerate(NAMES):
            for value in grid if free[k] else ():
                trial = theta.copy()
                trial[k] = value
                s = score(points, trial)
                if s < best - 1e-12:
                    trail.append(f"{name} {_w(theta[k])} -> {_w(value)}: {s:.5f}")
                    best, theta, moved = s, trial, True
        for tau in TEMPERATURES:
            trial = np.where(weighed, np.maximum(theta * tau, low), theta)
            s = score(points, trial)
            if s < best - 1e-12:
                trail.append(f"temperature {tau}: {s:.5f}")
                best, theta, moved = s, trial, True
        if not moved:
            break
    # four significant digits, as written (a value never moved reads back as it came)
    chosen = {name: float(f"{min(1.0, math.exp(theta[k])):.4g}") for k, name in enumerate(NAMES)}
    return Tuned(dataclasses.replace(start, **chosen), best, begun, tuple(trail))


def _weighed(points: Sequence[Point]) -> npt.NDArray[np.bool_]:
    """Which parameters tell assignments apart at some vote (the rest, never
    weighed or weighing every assignment alike, keep their value)."""
    seen = np.zeros(len(NAMES), dtype=bool)
    for p in points:
        seen |= np.ptp(p.counts, axis=0) > 0
    return seen


def _w(log_value: float) -> str:
    return f"{math.exp(log_value):.4g}"


def to_toml(b: Behaviour, header: str = "") -> str:
    """``b`` in behaviour.toml's format, under ``header`` as comments."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines += [f"{name} = {getattr(b, name):.4g}" for name in NAMES]
    return "\n".join(lines) + "\n"
