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
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping

from sandbox.deduction.evidence import (
    CheckReport,
    Evidence,
    RoleClaim,
    SeatIs,
    VotePromise,
    seats_of,
)
from sandbox.deduction.likelihood import Behaviour, Factor, factor, load_behaviour
from sandbox.deduction.space import Assignment, Counter, Space, seat_index
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
        self._index = seat_index(space.seats)
        self._rng = random.Random(seed)
        self._factors: list[Factor] = []
        self._said: set[Evidence] = set()
        self._checkers: set[int] = set()  # seats whose claim to check is weighed
        self._support: list[Assignment] = []
        self._logw: list[float] = []
        self.exact = True
        self._rebuild()

    # ------------------------------------------------------------ inputs

    @property
    def space(self) -> Space:
        return self._space

    def know(self, seat: int, roles: Iterable[str]) -> None:
        """``seat`` certainly has one of ``roles`` (its own card, a partner, a
        revealed death, a referee's answer)."""
        self._space = self._space.restrict(seat, frozenset(roles))
        if self.exact:
            i = self._index[seat]
            allowed = self._space.options(seat)
            kept = [
                (a, w) for a, w in zip(self._support, self._logw, strict=True) if a[i] in allowed
            ]
            if not kept:
                raise ValueError(f"knowing seat {seat} in {sorted(allowed)} leaves no assignment")
            self._support = [a for a, _ in kept]
            self._logw = [w for _, w in kept]
        else:
            self._rebuild()  # draw afresh from the smaller space (perhaps exact now)

    def observe(self, item: Evidence) -> None:
        """Weigh one piece of evidence."""
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
        found = factor(item, self.table, self.behaviour)
        self._factors.append(found)
        self._apply(found)
        if not self.exact:
            self._resample_if_thin()

    def observe_all(self, items: Iterable[Evidence]) -> None:
        for item in items:
            self.observe(item)

    # ------------------------------------------------------------ outputs

    def marginals(self) -> Marginals:
        """seat -> role -> probability (every role of the deck, summing to 1)."""
        weights = _normalised(self._logw)
        roles = self._space.roles
        out: Marginals = {seat: dict.fromkeys(roles, 0.0) for seat in self._space.seats}
        for assignment, w in zip(self._support, weights, strict=True):
            for seat, role in zip(self._space.seats, assignment, strict=True):
                out[seat][role] += w
        return out

    def probability(self, seat: int, roles: Iterable[str]) -> float:
        """The chance that ``seat`` has one of ``roles``."""
        wanted = frozenset(roles)
        return sum(p for r, p in self.marginals()[seat].items() if r in wanted)

    def support(self) -> list[tuple[Assignment, float]]:
        """The assignments held and their normalised weights."""
        return list(zip(self._support, _normalised(self._logw), strict=True))

    def effective_size(self) -> float:
        """The effective sample size of the weights (the support's size when even)."""
        weights = _normalised(self._logw)
        return 1.0 / sum(w * w for w in weights)

    # ------------------------------------------------------------ workings

    def _rebuild(self) -> None:
        counter = Counter(self._space)
        size = counter.total()
        if size == 0:
            raise ValueError("the knowledge given contradicts the deck: no assignment is left")
        self.exact = size <= self.exact_limit
        if self.exact:
            self._support = list(counter.all())
        else:
            self._support = [counter.draw(self._rng) for _ in range(self.particles)]
        self._logw = [0.0] * len(self._support)
        for found in self._factors:
            self._apply(found)
        if not self.exact:
            self._resample_if_thin()

    def _apply(self, found: Factor) -> None:
        # One or two seats per factor: the two shapes are spelled out, as this
        # loop runs over every assignment for every piece of evidence.
        at = [self._index[s] for s in found.seats]
        logs = found.logs
        pairs = zip(self._logw, self._support, strict=True)
        if len(at) == 1:
            (i,) = at
            self._logw = [w + logs.get((a[i],), 0.0) for w, a in pairs]
        elif len(at) == 2:
            i, j = at
            self._logw = [w + logs.get((a[i], a[j]), 0.0) for w, a in pairs]
        else:
            self._logw = [w + logs.get(tuple(a[k] for k in at), 0.0) for w, a in pairs]

    def _log_likelihood(self, a: Assignment, factors: Iterable[Factor]) -> float:
        return sum(f.logs.get(tuple(a[self._index[s]] for s in f.seats), 0.0) for f in factors)

    def _resample_if_thin(self) -> None:
        n = len(self._support)
        if self.effective_size() >= RESAMPLE_BELOW * n:
            return
        weights = _normalised(self._logw)
        start = self._rng.random() / n
        picked: list[Assignment] = []
        total, k = weights[0], 0
        for j in range(n):  # systematic resampling
            point = start + j / n
            while point > total and k < n - 1:
                k += 1
                total += weights[k]
            picked.append(self._support[k])
        self._support = [self._moved(a) for a in picked]
        self._logw = [0.0] * n

    def _moved(self, a: Assignment) -> Assignment:
        """``a`` after Metropolis swaps of two seats' roles, targeting the posterior."""
        seats = self._space.seats
        options = [self._space.options(s) for s in seats]
        touching: dict[int, list[Factor]] = {i: [] for i in range(len(seats))}
        for f in self._factors:
            for s in set(f.seats):
                touching[self._index[s]].append(f)
        current = list(a)
        for _ in range(MOVES_PER_SEAT * len(seats)):
            i, j = self._rng.sample(range(len(seats)), 2)
            ri, rj = current[i], current[j]
            if ri == rj or rj not in options[i] or ri not in options[j]:
                continue
            near = {id(f): f for f in (*touching[i], *touching[j])}.values()
            before = self._log_likelihood(tuple(current), near)
            current[i], current[j] = rj, ri
            after = self._log_likelihood(tuple(current), near)
            if math.log(self._rng.random() or 1e-300) >= after - before:
                current[i], current[j] = ri, rj  # rejected
        return tuple(current)


def _normalised(logw: list[float]) -> list[float]:
    top = max(logw)
    raw = [math.exp(w - top) for w in logw]
    total = sum(raw)
    return [w / total for w in raw]


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
