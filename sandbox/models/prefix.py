"""How much of a prompt two texts share: the measure prompt caches reuse by,
for the fake provider's simulated cache and the local server's slot router."""

from __future__ import annotations


def common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share (binary search on
    slice equality, which runs in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
