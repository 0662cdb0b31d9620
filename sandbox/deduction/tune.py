"""Choosing the likelihood parameters by the belief's Brier score on recorded
games (issue 37, item 1): a proper scoring rule of what the weights do to the
belief, where :mod:`.fit`'s frequency ratios describe each behaviour alone.

**The objective.** At each vote of an honest seat (the moments
``bench_reference.py --calibration`` scores), the seat's belief gives each
living other seat whose role it does not know a distribution over the roles;
the score of that vote is the mean over those seats of the Brier score
``sum over roles r of (P(r) - [r is the seat's role])²`` (``kind="roles"``, 0
for a certain right belief, 2 at worst; :func:`~sandbox.deduction.belief.brier`),
and the objective is its mean over every vote of every game. ``kind="hidden"``
scores only P(hidden) as ``--calibration`` does (``(P(hidden) - [hidden])²``);
the search uses the roles' score, since a bot also acts on who holds which
honest role (a checker's claim believed, a killer's strike at the police),
which the hidden score does not see. :func:`flat` is the score of no
deduction (every seat at each role's share). The belief is the bots' own: a
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
merges assignments with the same ``C`` row and the same roles of the seats
scored (adding ``log`` of their number), and :func:`score` then weighs
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
    ``counts`` (classes x parameters) and the log of how many assignments it
    holds ``size``; ``roles``: each class's role of each scored seat, one-hot
    (classes x scored seats*roles), and ``truth`` the true ones (one-hot);
    ``hidden`` and ``hidden_truth``: the same for "is hidden" (one column a seat)."""

    day: int
    counts: npt.NDArray[np.float64]
    size: npt.NDArray[np.float64]
    roles: npt.NDArray[np.float64]
    truth: npt.NDArray[np.float64]
    hidden: npt.NDArray[np.float64]
    hidden_truth: npt.NDArray[np.float64]

    def marks(self, kind: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """(the classes' marks, the truth) for ``kind``: "roles" or "hidden"."""
        if kind == "roles":
            return self.roles, self.truth
        if kind == "hidden":
            return self.hidden, self.hidden_truth
        raise ValueError(f"kind {kind!r}: 'roles' or 'hidden'")


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
        for seat, views in game.votes.items():
            minds = [Mind(t, level, seat, levels=levels) for t in probes]
            for view in views:
                for mind in minds:
                    think(mind, view)
                point = _point(minds, view, game.roles, table)
                if point is not None:
                    out.append(point)
    return out


def _probe_table(table: RoleTable, k: int) -> RoleTable:
    """``table`` with every parameter at 1 but the k-th, at ``e^-1``."""
    values = {name: (UNIT if i == k else 1.0) for i, name in enumerate(NAMES)}
    return dataclasses.replace(table, behaviour=values)


def _point(
    minds: Sequence[Mind], view: SeatView, true_roles: Mapping[int, str], table: RoleTable
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
        columns.append(-belief.assignments()[1])  # the probe's log weights: -C[:, k] (docstring)
    held = first.belief
    rows = held.assignments()[0]  # the same assignments, in the same order, in every probe
    deck = held.space.roles
    index = [{s: i for i, s in enumerate(held.space.seats)}[s] for s in scored]
    eye = np.eye(len(deck))
    roles = eye[rows[:, index]].reshape(len(rows), -1)  # one-hot, seat by seat
    counts = np.stack(columns, axis=1)
    keys = np.concatenate([np.round(counts, 9), roles], axis=1)
    unique, sizes = np.unique(keys, axis=0, return_counts=True)
    width = counts.shape[1]
    marks = unique[:, width:]
    is_hidden = np.array([r in table.hidden for r in deck], dtype=np.float64)
    truth = np.concatenate([eye[deck.index(true_roles[s])] for s in scored])
    per_seat = len(deck)
    return Point(
        day=int(view.public.get("day", 0)),
        counts=unique[:, :width].copy(),
        size=np.log(sizes.astype(np.float64)),
        roles=marks.copy(),
        truth=truth,
        hidden=marks.reshape(len(marks), -1, per_seat) @ is_hidden,
        hidden_truth=truth.reshape(-1, per_seat) @ is_hidden,
    )


def logs(b: Behaviour) -> npt.NDArray[np.float64]:
    """The parameters' logs, in :data:`NAMES` order."""
    return np.array([math.log(getattr(b, name)) for name in NAMES])


def brier(point: Point, theta: npt.NDArray[np.float64], kind: str = "roles") -> float:
    """One vote's Brier score under the logs ``theta``, the mean over the
    scored seats: of Σ over roles (p - [role is true])² ("roles", 0 to 2, as
    :func:`~sandbox.deduction.belief.brier`), or of (P(hidden) - [hidden])²
    ("hidden", 0 to 1, as ``--calibration``)."""
    marks, truth = point.marks(kind)
    logw = point.counts @ theta + point.size
    w = np.exp(logw - logw.max())
    p = (w @ marks) / w.sum()
    return float(np.sum((p - truth) ** 2)) / len(point.hidden_truth)


def score(points: Sequence[Point], theta: npt.NDArray[np.float64], kind: str = "roles") -> float:
    """The mean over ``points`` of each vote's Brier score."""
    if not points:
        raise ValueError("no vote to score")
    return sum(brier(p, theta, kind) for p in points) / len(points)


def by_day(
    points: Sequence[Point], theta: npt.NDArray[np.float64], kind: str = "roles"
) -> dict[int, tuple[float, int]]:
    """day -> (the mean Brier score of that day's votes, how many)."""
    days: dict[int, list[float]] = {}
    for p in points:
        days.setdefault(p.day, []).append(brier(p, theta, kind))
    return {d: (sum(v) / len(v), len(v)) for d, v in sorted(days.items())}


def flat(points: Sequence[Point], kind: str = "roles") -> float:
    """The Brier score of no deduction: every scored seat at each role's share
    of the scored seats over all ``points``."""
    if not points:
        raise ValueError("no vote to score")
    width = len(points[0].marks(kind)[1]) // len(points[0].hidden_truth)
    seats = [p.marks(kind)[1].reshape(-1, width) for p in points]
    share = np.concatenate(seats).mean(axis=0)
    return sum(float(np.sum((share - t) ** 2)) / len(t) for t in seats) / len(points)


def search(
    points: Sequence[Point], start: Behaviour, fixed: Collection[str] = (), kind: str = "roles"
) -> Tuned:
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
    best = score(points, theta, kind)
    begun = best
    trail: list[str] = []
    for _ in range(ROUNDS):
        moved = False
        for k, name in enumerate(NAMES):
            for value in grid if free[k] else ():
                trial = theta.copy()
                trial[k] = value
                s = score(points, trial, kind)
                if s < best - 1e-12:
                    trail.append(f"{name} {_w(theta[k])} -> {_w(value)}: {s:.5f}")
                    best, theta, moved = s, trial, True
        for tau in TEMPERATURES:
            trial = np.where(weighed, np.maximum(theta * tau, low), theta)
            s = score(points, trial, kind)
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
