"""The role assignments a seat's knowledge allows: counted, listed, or drawn
uniformly.

A deal gives every ordering of the deck the same chance, so before any talk
every assignment consistent with what a seat knows (its own role, its known
partners, the revealed roles of the dead, the referee's answers to its checks)
is equally likely: the prior of :mod:`.belief` is uniform over this set.

Counting is a dynamic programme over the seats with the roles still to deal
as its state (at most ``prod(count + 1)`` states per seat), so the size of the
space is known before deciding to list it or to draw from it, and a uniform
draw takes each seat's role in proportion to the completions it leaves.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

Assignment = tuple[str, ...]  # one role per seat, in the order of Space.seats


@dataclass(frozen=True)
class Space:
    """Seats, the deck dealt over them (role -> count, summing to the seats),
    and the roles each seat may still have (a seat not listed: any)."""

    seats: tuple[int, ...]
    deck: Mapping[str, int]
    allowed: Mapping[int, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if sum(self.deck.values()) != len(self.seats):
            raise ValueError(
                f"the deck deals {sum(self.deck.values())} cards to {len(self.seats)} seats"
            )
        if any(n < 0 for n in self.deck.values()):
            raise ValueError("a role count is negative")

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(sorted(self.deck))

    def options(self, seat: int) -> frozenset[str]:
        """The roles ``seat`` may have."""
        every = frozenset(r for r, n in self.deck.items() if n > 0)
        return self.allowed.get(seat, every) & every

    def restrict(self, seat: int, roles: frozenset[str]) -> Space:
        """The space once ``seat`` is known to have one of ``roles``."""
        allowed = dict(self.allowed)
        allowed[seat] = self.options(seat) & roles
        return Space(self.seats, self.deck, allowed)

    def allows(self, assignment: Assignment) -> bool:
        """Whether ``assignment`` deals the deck and respects every seat's options."""
        counts: dict[str, int] = {}
        for seat, role in zip(self.seats, assignment, strict=True):
            if role not in self.options(seat):
                return False
            counts[role] = counts.get(role, 0) + 1
        return all(counts.get(r, 0) == n for r, n in self.deck.items())


class Counter:
    """Counts of the completions of a partial deal, memoised for one space."""

    def __init__(self, space: Space) -> None:
        self.space = space
        self.roles = space.roles
        self.options = [
            tuple(i for i, r in enumerate(self.roles) if r in space.options(s)) for s in space.seats
        ]
        self.full = tuple(space.deck[r] for r in self.roles)
        self.completions = lru_cache(maxsize=None)(self._completions)

    def _completions(self, index: int, left: tuple[int, ...]) -> int:
        """The ways to deal ``left`` over the seats from ``index`` on."""
        if index == len(self.options):
            return 1
        total = 0
        for role in self.options[index]:
            if left[role]:
                total += self.completions(index + 1, _minus(left, role))
        return total

    def total(self) -> int:
        return int(self.completions(0, self.full))

    def all(self) -> Iterator[Assignment]:
        """Every assignment, in a fixed order."""
        yield from self._walk(0, self.full, ())

    def _walk(self, index: int, left: tuple[int, ...], done: Assignment) -> Iterator[Assignment]:
        if index == len(self.options):
            yield done
            return
        for role in self.options[index]:
            if left[role] and self.completions(index + 1, _minus(left, role)):
                yield from self._walk(index + 1, _minus(left, role), (*done, self.roles[role]))

    def draw(self, rng: random.Random) -> Assignment:
        """One assignment, every one equally likely."""
        left = self.full
        done: list[str] = []
        for index, options in enumerate(self.options):
            weights = [
                self.completions(index + 1, _minus(left, r)) if left[r] else 0 for r in options
            ]
            pick = rng.choices(options, weights=weights)[0]
            left = _minus(left, pick)
            done.append(self.roles[pick])
        return tuple(done)


def _minus(left: tuple[int, ...], role: int) -> tuple[int, ...]:
    return (*left[:role], left[role] - 1, *left[role + 1 :])


def count(space: Space) -> int:
    """How many assignments ``space`` allows."""
    return Counter(space).total()


def every(space: Space) -> list[Assignment]:
    """Every assignment ``space`` allows."""
    return list(Counter(space).all())


def seat_index(seats: Sequence[int]) -> dict[int, int]:
    return {seat: i for i, seat in enumerate(seats)}


# ------------------------------------------------------------ as arrays
# The belief holds its assignments as one integer array (a row per assignment,
# a column per seat, each entry an index into Space.roles), so that weighing a
# piece of evidence is one vectorised look-up instead of a loop in Python.

Rows = npt.NDArray[np.int8]
DECK_LISTING_LIMIT = 1_000_000  # above it, a deck is not listed whole to be masked


def _deals(counts: tuple[int, ...]) -> int:
    """The multinomial: ways to deal ``counts`` over their sum of seats."""
    return math.factorial(sum(counts)) // math.prod(math.factorial(c) for c in counts)


def listed(space: Space) -> Rows:
    """Every assignment ``space`` allows, as rows of role indices (the order of
    :func:`every`). The listing of the deck alone is computed once per seat
    count and deck and masked by the seats' options, so twelve seats' beliefs
    over the same table list it once."""
    roles = space.roles
    if _deals(tuple(space.deck.values())) > DECK_LISTING_LIMIT:
        return np.array([[roles.index(r) for r in a] for a in every(space)], dtype=np.int8).reshape(
            -1, len(space.seats)
        )
    full = _listed_deck(len(space.seats), tuple(space.deck[r] for r in roles))
    keep = np.ones(len(full), dtype=bool)
    for i, seat in enumerate(space.seats):
        options = space.options(seat)
        if len(options) < len(roles):
            allowed = np.array([r in options for r in roles], dtype=bool)
            keep &= allowed[full[:, i]]
    return full[keep]


@lru_cache(maxsize=16)
def _listed_deck(seats: int, counts: tuple[int, ...]) -> Rows:
    """Every way to deal ``counts`` (per role index) over ``seats`` seats, in
    lexicographic order; read-only, shared by every caller."""
    rows = np.zeros((1, 0), dtype=np.int8)
    left = np.array([counts], dtype=np.int16)
    for _ in range(seats):
        grown: list[Rows] = []
        lefts: list[npt.NDArray[np.int16]] = []
        for role in range(len(counts)):
            has = left[:, role] > 0
            if not has.any():
                continue
            column = np.full((int(has.sum()), 1), role, dtype=np.int8)
            grown.append(np.hstack([rows[has], column]))
            after = left[has].copy()
            after[:, role] -= 1
            lefts.append(after)
        rows, left = np.vstack(grown), np.vstack(lefts)
    rows = rows[np.lexsort(rows.T[::-1])]  # the order of Counter.all
    rows.setflags(write=False)
    return rows


def drawn(space: Space, n: int, gen: np.random.Generator) -> Rows:
    """``n`` assignments drawn uniformly from ``space`` (rows of role indices).

    First by shuffling: the seats with one option get it, the rest of the deck
    is shuffled over the other seats, and a shuffle that breaks a seat's options
    is thrown away (uniform over what is kept, as every shuffle is equally
    likely). When too many are thrown away, seat by seat instead
    (:func:`_drawn_in_order`)."""
    roles = space.roles
    allowed = np.array([[r in space.options(s) for r in roles] for s in space.seats], dtype=bool)
    fixed = allowed.sum(axis=1) == 1
    free = np.flatnonzero(~fixed)
    rest = dict(space.deck)
    for i in np.flatnonzero(fixed):
        rest[roles[int(np.argmax(allowed[i]))]] -= 1
    if any(v < 0 for v in rest.values()):
        return _drawn_in_order(space, n, gen)
    cards = np.array([k for k, r in enumerate(roles) for _ in range(rest[r])], dtype=np.int8)
    base = np.where(fixed, np.argmax(allowed, axis=1), 0).astype(np.int8)
    kept: list[Rows] = []
    found, tried = 0, 0
    while found < n and tried < SHUFFLE_TRIES * n:
        batch = 2 * n
        order = np.argsort(gen.random((batch, len(free))), axis=1)
        rows = np.tile(base, (batch, 1))
        rows[:, free] = cards[order]
        good = rows[allowed[np.arange(len(space.seats))[None, :], rows].all(axis=1)]
        kept.append(good)
        found += len(good)
        tried += batch
    if found < n:
        return _drawn_in_order(space, n, gen)
    return np.vstack(kept)[:n]


SHUFFLE_TRIES = 20  # shuffles per particle before drawing seat by seat


def _drawn_in_order(space: Space, n: int, gen: np.random.Generator) -> Rows:
    """``n`` uniform draws seat by seat, each role in proportion to the
    completions it leaves, the particles that share what is left of the deck
    drawn together."""
    counter = Counter(space)
    width = len(counter.roles)
    rows = np.zeros((n, len(space.seats)), dtype=np.int8)
    left = np.tile(np.array(counter.full, dtype=np.int16), (n, 1))
    for index, options in enumerate(counter.options):
        states, which = np.unique(left, axis=0, return_inverse=True)
        which = which.reshape(-1)
        picks = np.zeros(n, dtype=np.int8)
        for k, state in enumerate(states):
            rest = tuple(int(x) for x in state)
            weights = np.zeros(width)
            for role in options:
                if rest[role]:
                    weights[role] = counter.completions(index + 1, _minus(rest, role))
            members = np.flatnonzero(which == k)
            cumulative = np.cumsum(weights / weights.sum())
            cumulative[np.flatnonzero(weights)[-1] :] = np.inf  # never a role without weight
            found = np.searchsorted(cumulative, gen.random(len(members)), side="right")
            picks[members] = np.minimum(found, width - 1)
        rows[:, index] = picks
        left[np.arange(n), picks] -= 1
    return rows
