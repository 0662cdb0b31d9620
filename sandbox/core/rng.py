"""Seeded randomness. Every random draw in a game comes from a generator
derived from the game seed and a label, so resuming a game from its events
needs no saved generator state."""

from __future__ import annotations

import hashlib
import random


def derive_rng(seed: int, *labels: object) -> random.Random:
    digest = hashlib.sha256(repr((seed, *labels)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
