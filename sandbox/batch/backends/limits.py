"""Cluster-wide call limits: per provider or model, at most N calls in flight and
at most M requests started per minute, whichever process makes them.

``LimiterCore`` is the bookkeeping (plain asyncio, no Ray): the Ray backend runs
it inside one actor that every worker's call gate asks (sandbox/models/gate.py).
A limit's key is a model string as the client sends it (``openai/gpt-4o``; the
built-in fake provider's ``fake/<policy>`` is sent as ``openai/fake-<policy>``)
or a provider, the part before the first ``/`` (``openai``); an exact model
limit wins over its provider's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sandbox.batch.backends.base import BackendError, Limit

MINUTE_S = 60.0
RECHECK_S = 1.0  # a caller held by the RPM budget looks again at least this often


class LimitError(BackendError):
    """A --limit / --rpm value that cannot be read (shown as one error line)."""


def parse_limits(concurrency: Sequence[str], rpm: Sequence[str]) -> dict[str, Limit]:
    """``["openai=4"]`` and ``["openai=600"]`` → ``{"openai": Limit(4, 600)}``."""
    caps = _pairs(concurrency, "--limit")
    budgets = _pairs(rpm, "--rpm")
    return {key: Limit(caps.get(key), budgets.get(key)) for key in sorted(set(caps) | set(budgets))}


def _pairs(values: Sequence[str], option: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        key, sep, number = value.partition("=")
        key = key.strip()
        if not sep or not key or not number.strip().isdigit() or int(number) < 1:
            raise LimitError(
                f"{option}: {value!r} is not KEY=N with a provider or model and N ≥ 1 "
                "(e.g. openai=4)"
            )
        out[key] = int(number)
    return out


def key_for(model: str, limits: Mapping[str, Limit]) -> str | None:
    """The limit that governs calls to ``model``: its own, else its provider's."""
    if model in limits:
        return model
    provider = model.split("/", 1)[0]
    return provider if provider in limits else None


@dataclass
class _Bucket:
    limit: Limit
    in_flight: int = 0
    peak: int = 0
    started: deque[float] = field(default_factory=deque)
    holders: Counter[str] = field(default_factory=Counter)


class LimiterCore:
    """Grants call slots under every limit; waiting callers are served as slots free up."""

    def __init__(
        self, limits: Mapping[str, Limit], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._buckets = {key: _Bucket(limit) for key, limit in limits.items()}
        self._clock = clock
        self._changed = asyncio.Condition()

    async def acquire(self, key: str, holder: str) -> None:
        bucket = self._buckets.get(key)
        if bucket is None:
            return
        async with self._changed:
            while True:
                wait_s = self._wait_needed(bucket)
                if wait_s == 0.0:
                    break
                with contextlib.suppress(TimeoutError):  # an RPM window moved on: look again
                    await asyncio.wait_for(self._changed.wait(), wait_s)
            bucket.in_flight += 1
            bucket.peak = max(bucket.peak, bucket.in_flight)
            bucket.started.append(self._clock())
            bucket.holders[holder] += 1

    def _wait_needed(self, bucket: _Bucket) -> float | None:
        """0.0 when a call may start now; else how long to wait (None: until a release)."""
        now = self._clock()
        while bucket.started and now - bucket.started[0] >= MINUTE_S:
            bucket.started.popleft()
        limit = bucket.limit
        if limit.concurrency is not None and bucket.in_flight >= limit.concurrency:
            return None
        if limit.rpm is not None and len(bucket.started) >= limit.rpm:
            return min(max(MINUTE_S - (now - bucket.started[0]), 0.001), RECHECK_S)
        return 0.0

    async def release(self, key: str, holder: str) -> None:
        bucket = self._buckets.get(key)
        if bucket is None or bucket.holders[holder] == 0:
            return  # never granted (a cancelled wait) or already given back
        async with self._changed:
            self._give_back(bucket, holder, 1)
            self._changed.notify_all()

    async def release_holder(self, holder: str) -> int:
        """Give back every slot ``holder`` still holds (its worker died); how many."""
        freed = 0
        async with self._changed:
            for bucket in self._buckets.values():
                count = bucket.holders[holder]
                if count:
                    self._give_back(bucket, holder, count)
                    freed += count
            self._changed.notify_all()
        return freed

    @staticmethod
    def _give_back(bucket: _Bucket, holder: str, count: int) -> None:
        bucket.in_flight -= count
        bucket.holders[holder] -= count
        if bucket.holders[holder] <= 0:
            del bucket.holders[holder]

    def peaks(self) -> dict[str, int]:
        """The most calls each key ever had in flight at once."""
        return {key: bucket.peak for key, bucket in self._buckets.items()}
