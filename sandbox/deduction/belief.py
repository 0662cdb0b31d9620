"""A belief over role assignments: exact where the space allows, sampled
otherwise (issue 37, item 1's core).

The prior is uniform over the assignments a seat's knowledge allows
(:mod:`.space`); each piece of evidence multiplies in its factor
(:mod:`.likelihood`). Knowledge (:meth:`Belief.know`) removes assignments;
evidence (:meth:`Belief.observe`) reweighs them.

- **Exact** when the space holds at most ``exact_limit`` assignments
  (:data:`EXACT_LIMIT`, 20 000: a civilian's view of a 12-seat Killer table is
  9 240, any view of an 8-seat Werewolf table at most 420): every assignment
  is listed with its weight.
- **Sampled** above it (a 16-seat Werewolf or Four Factions table): ``particles``
  assignments drawn uniformly from the space with a ``random.Random(seed)``,
  weighted by the evidence; when the effective sample size falls under half,
  they are resampled (systematic) and moved by Metropolis swaps of two seats'
  roles, which keep the deck and the knowledge. The same seed and the same
  calls give the same belief.

Speech evidence (claims, statements, check reports, vote promises) counts once
per speaker and content: saying the same thing again adds nothing. Ballots and
kills count every time. A check report also weighs, once, the speaker's claim
to be the checker.

The assignments are one integer array (a row each, a column per seat) and the
weights one array of logs, so a piece of evidence is one vectorised look-up of
its factor's table over two columns (bench/bench_belief.py measures it).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt

from sandbox.deduction.evidence import (
    CheckReport,
    Evidence,
    RoleClaim,
    SeatIs,
    VotePromise,
    seats_of,
)
from sandbox.deduction.likelihood import Behaviour, Factor, factor, load_behaviour
from sandbox.deduction.space import Assignment, Counter, Rows, Space, drawn, listed, seat_index
from sandbox.deduction.tables import RoleTable

EXACT_LIMIT = 20_000
PARTICLES = 2_000
RESAMPLE_BELOW = 0.5  # of the particles: the effective sample size that resamples
MOVES_PER_SEAT = 2  # Metropolis swap proposals per particle and seat after a resampling

Marginals = dict[int, dict[str, float]]


class Belief:
    """One seat's belief over who has which role."""

    def __init__(
        self,
        space: Space,
        table: RoleTable,
        behaviour: Behaviour | None = None,
        *,
        exact_limit: int = EXACT_LIMIT,
        particles: int = PARTICLES,
        seed: int = 0,
    ) -> None:
        self.table = table
        self.behaviour = behaviour if behaviour is not None else load_behaviour()
        self.exact_limit = exact_limit
        self.particles = particles
        self._space = space
        self._roles = space.roles
        self._index = seat_index(space.seats)
        self._rng = random.Random(seed)
        self._gen = np.random.default_rng(seed)
        self._factors: list[_Table] = []
        self._said: set[Evidence] = set()
        self._checkers: set[int] = set()  # seats whose claim to check is weighed
        self._rows: Rows = np.zeros((0, len(space.seats)), dtype=np.int8)
        self._logw: npt.NDArray[np.float64] = np.zeros(0)
        self._marginals: Marginals | None = None
        self._stale = False  # knowledge came since the particles were drawn
        self.exact = True
        self._rebuild()

    # ------------------------------------------------------------ inputs

    @property
    def space(self) -> Space:
        return self._space

    def know(self, seat: int, roles: Iterable[str]) -> None:
        """``seat`` certainly has one of ``roles`` (its own card, a partner, a
        revealed death, a referee's answer)."""
        before = self._space.options(seat)
        self._space = self._space.restrict(seat, frozenset(roles))
        allowed = self._space.options(seat)
        if allowed == before:
            return  # nothing new (a death already known, a partner told again)
        self._marginals = None
        if self.exact:
            mask = self._role_mask(allowed)[self._rows[:, self._index[seat]]]
            if not mask.any():
                raise ValueError(f"knowing seat {seat} in {sorted(allowed)} leaves no assignment")
            self._rows, self._logw = self._rows[mask], self._logw[mask]
        elif not allowed:
            raise ValueError(f"knowing seat {seat} in nothing leaves no assignment")
        else:
            self._stale = True  # drawn afresh from the smaller space when next needed

    def observe(self, item: Evidence, weight: float = 1.0) -> None:
        """Weigh one piece of evidence; ``weight`` < 1 tempers its factor (its
        log-likelihood times ``weight``: evidence that partly repeats other
        evidence, which the model would otherwise count as independent)."""
        if isinstance(item, RoleClaim | SeatIs | CheckReport | VotePromise):
            if item in self._said:
                return
            self._said.add(item)
        for seat in seats_of(item):
            if seat not in self._index:
                raise ValueError(f"evidence {item!r} names seat {seat}, not at this table")
        checker = self.table.checker
        if isinstance(item, RoleClaim) and item.roles == frozenset({checker}):
            if item.speaker in self._checkers:
                return
            self._checkers.add(item.speaker)
        if isinstance(item, CheckReport) and checker and item.speaker not in self._checkers:
            self.observe(RoleClaim(item.speaker, frozenset({checker})))
        found = self._table_of(factor(item, self.table, self.behaviour))
        found.logs = found.logs * weight
        self._factors.append(found)
        if self._stale:
            self._rebuild()  # weighs every factor, this one included
            return
        self._apply(found)
        if not self.exact:
            self._resample_if_thin()

    def observe_all(self, items: Iterable[Evidence]) -> None:
        for item in items:
            self.observe(item)

    # ------------------------------------------------------------ outputs

    def assignments(self) -> tuple[Rows, npt.NDArray[np.float64]]:
        """The assignments still allowed (one row each, a role index per seat of
        ``space.seats``) and their log weights, unnormalised: what a fitter reads
        to score other weights on the same evidence (sandbox/deduction/tune.py)."""
        self._fresh()
        return self._rows, self._logw

    def marginals(self) -> Marginals:
        """seat -> role -> probability (every role of the deck, summing to 1)."""
        self._fresh()
        if self._marginals is None:
            weights = _normalised(self._logw)
            width = len(self._roles)
            out: Marginals = {}
            for i, seat in enumerate(self._space.seats):
                mass = np.bincount(self._rows[:, i], weights=weights, minlength=width)
                out[seat] = {role: float(mass[k]) for k, role in enumerate(self._roles)}
            self._marginals = out
        return {seat: dict(dist) for seat, dist in self._marginals.items()}

    def probability(self, seat: int, roles: Iterable[str]) -> float:
        """The chance that ``seat`` has one of ``roles``."""
        wanted = frozenset(roles)
        self.marginals()
        assert self._marginals is not None
        return sum(p for r, p in self._marginals[seat].items() if r in wanted)

    def support(self) -> list[tuple[Assignment, float]]:
        """The assignments held and their normalised weights."""
        self._fresh()
        roles = self._roles
        weights = _normalised(self._logw)
        return [
            (tuple(roles[k] for k in row), float(w))
            for row, w in zip(self._rows.tolist(), weights.tolist(), strict=True)
        ]

    def effective_size(self) -> float:
        """The effective sample size of the weights (the support's size when even)."""
        self._fresh()
        weights = _normalised(self._logw)
        return float(1.0 / np.dot(weights, weights))

    # ------------------------------------------------------------ workings

    def _role_mask(self, roles: Iterable[str]) -> npt.NDArray[np.bool_]:
        wanted = frozenset(roles)
        return np.array([r in wanted for r in self._roles], dtype=bool)

    def _table_of(self, found: Factor) -> _Table:
        """A factor as an array over the role indices of its seats (1 or 2 axes)."""
        width = len(self._roles)
        logs = np.zeros((width,) * len(found.seats))
        at = {role: k for k, role in enumerate(self._roles)}
        for key, value in found.logs.items():
            if all(r in at for r in key):
                logs[tuple(at[r] for r in key)] = value
        return _Table(tuple(self._index[s] for s in found.seats), logs)

    def _fresh(self) -> None:
        if self._stale:
            self._rebuild()

    def _rebuild(self) -> None:
        self._stale = False
        counter = Counter(self._space)
        size = counter.total()
        if size == 0:
            raise ValueError("the knowledge given contradicts the deck: no assignment is left")
        self.exact = size <= self.exact_limit
        if self.exact:
            self._rows = listed(self._space)
        else:
            self._rows = drawn(self._space, self.particles, self._gen)
        self._logw = np.zeros(len(self._rows))
        self._marginals = None
        for found in self._factors:
            self._apply(found)
        if not self.exact:
            self._resample_if_thin()

    def _apply(self, found: _Table) -> None:
        self._logw = self._logw + found.over(self._rows)
        self._marginals = None

    def _resample_if_thin(self) -> None:
        n = len(self._rows)
        if self.effective_size() >= RESAMPLE_BELOW * n:
            return
        cumulative = np.cumsum(_normalised(self._logw))
        points = (self._rng.random() + np.arange(n)) / n  # systematic resampling
        picked = np.minimum(np.searchsorted(cumulative, points), n - 1)
        self._rows = self._moved(self._rows[picked])
        self._logw = np.zeros(n)
        self._marginals = None

    def _moved(self, rows: Rows) -> Rows:
        """``rows`` after Metropolis swaps of two seats' roles, targeting the
        posterior: each step proposes the same two seats to every particle and
        accepts or rejects each particle's swap on its own."""
        rows = rows.copy()
        width = len(self._space.seats)
        allowed = np.array(
            [self._role_mask(self._space.options(s)) for s in self._space.seats], dtype=bool
        )
        touching: dict[int, list[_Table]] = {i: [] for i in range(width)}
        for f in self._factors:
            for i in set(f.at):
                touching[i].append(f)
        for _ in range(MOVES_PER_SEAT * width):
            i, j = self._rng.sample(range(width), 2)
            near = list({id(f): f for f in (*touching[i], *touching[j])}.values())
            ri, rj = rows[:, i].copy(), rows[:, j].copy()
            legal = (ri != rj) & allowed[i][rj] & allowed[j][ri]
            if not legal.any():
                continue
            before = sum((f.over(rows) for f in near), np.zeros(len(rows)))
            swapped = rows.copy()
            swapped[:, i], swapped[:, j] = rj, ri
            after = sum((f.over(swapped) for f in near), np.zeros(len(rows)))
            accept = legal & (np.log(self._gen.random(len(rows)) + 1e-300) < after - before)
            rows[accept] = swapped[accept]
        return rows


class _Table:
    """One factor over the belief's columns: ``at`` (1 or 2 column indices) and
    ``logs``, an array with an axis per column, indexed by role index."""

    __slots__ = ("at", "logs")

    def __init__(self, at: tuple[int, ...], logs: npt.NDArray[np.float64]) -> None:
        self.at = at
        self.logs = logs

    def over(self, rows: Rows) -> npt.NDArray[np.float64]:
        """The factor's log weight of each row."""
        if len(self.at) == 1:
            return self.logs[rows[:, self.at[0]]]
        return self.logs[tuple(rows[:, k] for k in self.at)]


def _normalised(logw: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    raw: npt.NDArray[np.float64] = np.exp(logw - logw.max())
    return raw / float(raw.sum())


def brier(
    marginals: Marginals, truth: Mapping[int, str], seats: Iterable[int] | None = None
) -> float:
    """The mean over ``seats`` (default: every seat of ``marginals``) of the Brier
    score of each seat's role distribution against its true role: the sum over
    roles of (p - [role is true])², 0 for a certain right belief, 2 at worst."""
    chosen = list(marginals if seats is None else seats)
    if not chosen:
        raise ValueError("no seat to score")
    total = 0.0
    for seat in chosen:
        dist = marginals[seat]
        total += sum((p - (1.0 if role == truth[seat] else 0.0)) ** 2 for role, p in dist.items())
    return total / len(chosen)


def hidden_brier(
    marginals: Marginals,
    truth: Mapping[int, str],
    hidden: frozenset[str],
    seats: Iterable[int] | None = None,
) -> float:
    """The mean Brier score of P(seat is hidden) against the truth (0 to 1)."""
    chosen = list(marginals if seats is None else seats)
    if not chosen:
        raise ValueError("no seat to score")
    total = 0.0
    for seat in chosen:
        p = sum(q for role, q in marginals[seat].items() if role in hidden)
        total += (p - (1.0 if truth[seat] in hidden else 0.0)) ** 2
    return total / len(chosen)
