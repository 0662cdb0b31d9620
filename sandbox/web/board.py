"""A screen shared between the game (which writes it) and the web server (which
pushes it to every open page of one audience).

The game runs on its own event loop and the server on another, in another
thread; a board is the only thing they share. Writers call :meth:`Board.update`
from any thread; each open WebSocket holds a :class:`Subscriber` that is poked on
its own loop whenever the board changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class Subscriber:
    """One open page of an audience, woken on its server loop."""

    loop: asyncio.AbstractEventLoop
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def poke(self) -> None:
        # A closed server loop raises RuntimeError: nobody is left to wake.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.changed.set)


class Board:
    """The state of one screen, with a version that grows with every change."""

    def __init__(self, **initial: Any) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, Any] = dict(initial)
        self._version = 0
        self._subscribers: set[Subscriber] = set()

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self._state.get(key, default)

    def update(self, **changes: Any) -> None:
        """Apply ``changes``; only a real change wakes the open pages (the run
        refreshes some boards after every event, mostly with the same values)."""
        with self._lock:
            if all(k in self._state and self._state[k] == v for k, v in changes.items()):
                return
            self._state.update(changes)
            self._version += 1
            waiting = list(self._subscribers)
        for subscriber in waiting:
            subscriber.poke()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {**self._state, "version": self._version}

    def subscribe(self) -> Subscriber:
        """For a server coroutine: a subscriber woken on the running loop."""
        subscriber = Subscriber(asyncio.get_running_loop())
        with self._lock:
            self._subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(subscriber)

    async def changed_since(self, version: int | None, wait_s: float) -> dict[str, Any]:
        """The snapshot once its version differs from ``version`` (or after ``wait_s``)."""
        subscriber = self.subscribe()
        try:
            if self.version == version:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(subscriber.changed.wait(), wait_s)
            return self.snapshot()
        finally:
            self.unsubscribe(subscriber)
