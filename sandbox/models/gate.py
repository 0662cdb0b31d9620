"""The call gate: a process-wide hook around every HTTP attempt of an LLM seat.

By default it lets every call through at once (the client's per-model semaphore
is the only limit, and it is per process). A backend that spreads games over
many processes or machines installs a gate that asks a shared limiter first, so
a provider's concurrency and requests-per-minute budget hold across all of them
(sandbox/batch/backends/ray_task.py installs one backed by a Ray actor).

This module imports nothing from the sandbox: the LLM client imports it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol


class CallGate(Protocol):
    """Holds one call to ``model`` open for as long as the context lasts."""

    def slot(self, model: str) -> AbstractAsyncContextManager[None]: ...


class OpenGate:
    """The default: no wait, no bookkeeping."""

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        yield


_OPEN = OpenGate()
_gate: CallGate = _OPEN


def install_gate(gate: CallGate | None) -> None:
    """Use ``gate`` for every later call in this process (None: back to open)."""
    global _gate
    _gate = gate if gate is not None else _OPEN


def call_slot(model: str) -> AbstractAsyncContextManager[None]:
    """What the client awaits around one HTTP attempt to ``model``."""
    return _gate.slot(model)


# ------------------------------------------------ provider back-off (Retry-After)
# When a provider answers 429 with Retry-After, no call to it starts before
# that time, from any seat of any game in this process (the batch slows down,
# rather than each seat retrying on its own schedule). A gate that spreads
# calls over processes may also learn it: a ``hold_off(provider, seconds)``
# method on the installed gate is called too.
_not_before: dict[str, float] = {}


def hold_off(provider: str, seconds: float) -> None:
    """No call to ``provider`` starts in the next ``seconds`` (the later time wins)."""
    until = time.monotonic() + max(0.0, seconds)
    _not_before[provider] = max(_not_before.get(provider, 0.0), until)
    shared = getattr(_gate, "hold_off", None)
    if callable(shared):
        shared(provider, seconds)


def held_for(provider: str) -> float:
    """Seconds left before a call to ``provider`` may start (0 when free)."""
    return max(0.0, _not_before.get(provider, 0.0) - time.monotonic())


def forget_holds() -> None:
    """Drop every hold-off this process learned (a test, or a host starting
    afresh, must not inherit another run's Retry-After: a loopback server on a
    reused port has the same key)."""
    _not_before.clear()


async def wait_turn(provider: str) -> float:
    """Sleep until ``provider`` may be called again; returns the seconds slept."""
    slept = 0.0
    while (left := held_for(provider)) > 0:  # a later hold may arrive meanwhile
        await asyncio.sleep(left)
        slept += left
    return slept
