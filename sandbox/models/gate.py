"""The call gate: a process-wide hook around every HTTP attempt of an LLM seat.

By default it lets every call through at once (the client's per-model semaphore
is the only limit, and it is per process). A backend that spreads games over
many processes or machines installs a gate that asks a shared limiter first, so
a provider's concurrency and requests-per-minute budget hold across all of them
(sandbox/batch/backends/ray_task.py installs one backed by a Ray actor).

This module imports nothing from the sandbox: the LLM client imports it.
"""

from __future__ import annotations

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
