"""The fake provider's two prompt caches, one per caching style.

``PrefixCache`` is the implicit kind (OpenAI, Gemini's implicit caching,
llama.cpp): every prompt answered is remembered, and a new prompt's longest
common prefix with any of them counts as cached.

``BreakpointCache`` is Anthropic's explicit kind: only prefixes ending at a
``cache_control`` breakpoint are written, and a later request reads one back
only where one of its own content blocks ends at the same place (the lookup
goes back at most ``LOOKBACK_BLOCKS`` blocks from each breakpoint). So a
block that grows between calls (a record that gains lines) is written again
each time, not read: that is how the real service behaves too.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass

from sandbox.models.prefix import common_prefix

CACHE_PROMPTS = 4096  # prompts remembered by the simulated prefix cache
LOOKBACK_BLOCKS = 20  # Anthropic checks about 20 block boundaries before a breakpoint


class PrefixCache:
    """The longest prefix a prompt shares with any remembered one. The
    prompts are kept sorted: the best match is always a sorted neighbour."""

    def __init__(self, size: int = CACHE_PROMPTS) -> None:
        self.size = size
        self._sorted: list[str] = []
        self._order: deque[str] = deque()

    def lookup_and_add(self, prompt: str) -> int:
        """Characters of ``prompt`` found cached; then ``prompt`` is cached."""
        at = bisect.bisect_left(self._sorted, prompt)
        neighbours = self._sorted[max(0, at - 1) : at + 1]
        found = max((common_prefix(prompt, other) for other in neighbours), default=0)
        if at < len(self._sorted) and self._sorted[at] == prompt:
            return found
        self._sorted.insert(at, prompt)
        self._order.append(prompt)
        if len(self._order) > self.size:
            oldest = self._order.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, oldest)]
        return found


@dataclass(frozen=True)
class CacheHit:
    """Characters of a prompt read from the cache and written to it."""

    read: int
    written: int


class BreakpointCache:
    """Prefixes written at ``cache_control`` breakpoints, by their digest."""

    def __init__(self, size: int = CACHE_PROMPTS, min_chars: int = 0) -> None:
        self.size = size
        self.min_chars = min_chars  # shorter prefixes are never cached (a model's minimum)
        self._written: OrderedDict[str, None] = OrderedDict()

    def lookup_and_write(
        self, prompt: str, boundaries: Sequence[int], breakpoints: Sequence[int]
    ) -> CacheHit:
        """``boundaries``: where each content block of ``prompt`` ends (in
        order); ``breakpoints``: the ones marked ``cache_control``. The
        longest prefix read back ends at a boundary near a breakpoint; what
        lies between it and the last cacheable breakpoint is written."""
        marks = sorted(b for b in set(breakpoints) if b >= self.min_chars)
        if not marks:
            return CacheHit(0, 0)
        ends = sorted(set(boundaries) | set(marks))
        candidates: set[int] = set()
        for mark in marks:
            at = bisect.bisect_right(ends, mark)
            candidates.update(ends[max(0, at - LOOKBACK_BLOCKS) : at])
        read = 0
        for end in sorted(candidates, reverse=True):
            if end >= self.min_chars and _digest(prompt[:end]) in self._written:
                read = end
                break
        for mark in marks:
            key = _digest(prompt[:mark])
            self._written[key] = None
            self._written.move_to_end(key)
        while len(self._written) > self.size:
            self._written.popitem(last=False)
        return CacheHit(read=read, written=max(0, marks[-1] - read))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
