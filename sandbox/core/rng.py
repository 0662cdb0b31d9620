"""Seeded randomness. Every random draw in a game comes from a generator
derived from the game seed and a label, so resuming a game from its events
needs no saved generator state."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

SeedValue = int | float | str | bytes | bytearray | None


def derived_seed(seed: int, *labels: object) -> int:
    """The integer seed of the generator for ``(seed, *labels)``."""
    digest = hashlib.sha256(repr((seed, *labels)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def derive_rng(seed: int, *labels: object) -> random.Random:
    return random.Random(derived_seed(seed, *labels))


class LazyRandom(random.Random):
    """The generator ``derive_rng(seed, *labels)`` would give, seeded on its first
    draw: seeding a Mersenne Twister costs more than most steps' resolution, and
    most steps draw nothing. Every draw of ``random.Random`` goes through
    ``random()`` or ``getrandbits()``, so the draws are exactly the eager ones."""

    def __init__(self, seed: int = 0, *labels: object) -> None:
        # No super().__init__: that would seed now (the cost being deferred).
        self._deferred: tuple[int, tuple[object, ...]] | None = (seed, labels)
        self.gauss_next = None  # as random.Random.__init__ sets it

    def defer(self, seed: int, *labels: object) -> None:
        """Become the generator of ``(seed, *labels)`` again, seeded on its first draw:
        one object serves every step of a game (building a generator costs more
        than re-arming one)."""
        self._deferred = (seed, labels)
        self.gauss_next = None

    def _seed_now(self) -> None:
        if self._deferred is not None:
            seed, labels = self._deferred
            self._deferred = None
            super().seed(derived_seed(seed, *labels))

    # random.Random.seed itself differs from _random.Random.seed in the stubs
    def seed(self, a: SeedValue = None, version: int = 2) -> None:  # type: ignore[override]
        self._deferred = None
        super().seed(a, version)

    def random(self) -> float:
        self._seed_now()
        return super().random()

    def getrandbits(self, k: int, /) -> int:
        self._seed_now()
        return super().getrandbits(k)

    def getstate(self) -> tuple[Any, ...]:
        self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._deferred = None
        super().setstate(state)


def deal_roles(
    fixed: Mapping[int, str], counts: Mapping[str, int], seats: int, rng: random.Random
) -> dict[int, str]:
    """Seat -> role: the ``fixed`` seats' roles first, the remaining cards of the
    line-up (role -> how many) shuffled by ``rng`` over the other seats 1..``seats``."""
    roles = dict(fixed)
    deck: list[str] = []
    for role, count in counts.items():
        deck += [role] * (count - sum(1 for r in roles.values() if r == role))
    rng.shuffle(deck)
    free = [s for s in range(1, seats + 1) if s not in roles]
    roles.update(zip(free, deck, strict=True))
    return dict(sorted(roles.items()))
