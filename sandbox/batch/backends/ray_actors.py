"""The Ray backend's shared state, as Ray actors the driver starts and every
task talks to: the tracker of running games and the cluster-wide call limiter,
with the call gate a task installs to ask that limiter (``RayGate``; an actor
playing many games installs ``GameGate``, which finds each call's game by
context variable)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sandbox.batch.backends.base import Limit
from sandbox.batch.backends.limits import LimiterCore, key_for


class GameTracker:
    """Driver-side memory of running games (a Ray actor, no CPU): each task's
    worker pid and, in ``send`` mode, the transcript lines written so far."""

    def __init__(self) -> None:
        self._pids: dict[str, int] = {}
        self._lines: dict[str, tuple[str, bytearray]] = {}

    def started(self, ident: str, pid: int) -> None:
        self._pids[ident] = pid

    def append(self, ident: str, name: str, chunk: bytes) -> None:
        self._lines.setdefault(ident, (name, bytearray()))[1].extend(chunk)

    def append_many(self, chunks: Mapping[str, tuple[str, bytes]]) -> None:
        """The new lines of every game an actor plays, in one call (ray_worker.py)."""
        for ident, (name, chunk) in chunks.items():
            self.append(ident, name, chunk)

    def partial(self, ident: str) -> tuple[str, bytes] | None:
        entry = self._lines.get(ident)
        return (entry[0], bytes(entry[1])) if entry else None

    def forget(self, ident: str) -> None:
        self._pids.pop(ident, None)
        self._lines.pop(ident, None)

    def running(self) -> dict[str, tuple[int, int]]:
        """Per running game: (worker pid, transcript lines received)."""
        return {
            ident: (pid, self._lines[ident][1].count(b"\n") if ident in self._lines else 0)
            for ident, pid in self._pids.items()
        }


class Limiter:
    """The cluster-wide call limiter (an async Ray actor around LimiterCore)."""

    def __init__(self, limits: Mapping[str, Limit]) -> None:
        self._core = LimiterCore(limits)

    async def acquire(self, key: str, holder: str) -> None:
        await self._core.acquire(key, holder)

    async def release(self, key: str, holder: str) -> None:
        await self._core.release(key, holder)

    async def release_holder(self, holder: str) -> int:
        return await self._core.release_holder(holder)

    async def peaks(self) -> dict[str, int]:
        return self._core.peaks()


class RayGate:
    """A call gate that holds a limiter slot for the length of each HTTP attempt."""

    def __init__(self, limiter: Any, limits: Mapping[str, Limit], holder: str) -> None:
        self.limiter = limiter
        self.limits = dict(limits)
        self.holder = holder

    def slot(self, model: str) -> AbstractAsyncContextManager[None]:
        return self.held(model, self.holder)

    @asynccontextmanager
    async def held(self, model: str, holder: str) -> AsyncIterator[None]:
        """One limiter slot for ``model``, booked to ``holder``."""
        key = key_for(model, self.limits)
        if key is None:
            yield
            return
        try:
            await self.limiter.acquire.remote(key, holder)
        except asyncio.CancelledError:
            # The grant may still come after this release; the task's
            # release_holder at its end gives it back then.
            self.limiter.release.remote(key, holder)
            raise
        try:
            yield
        finally:
            await self.limiter.release.remote(key, holder)


# The holder of the game whose coroutine is running (an actor plays many): each
# game's task sets it, and every task the game starts inherits it (asyncio
# copies the context into new tasks).
GAME_HOLDER: contextvars.ContextVar[str] = contextvars.ContextVar("game_holder", default="")


class GameGate(RayGate):
    """``RayGate`` for a process that plays many games at once: the slots of a
    call belong to the game that makes it (``GAME_HOLDER``), so a lost or
    finished game's slots are given back without touching the others'."""

    def slot(self, model: str) -> AbstractAsyncContextManager[None]:
        return self.held(model, GAME_HOLDER.get() or self.holder)
