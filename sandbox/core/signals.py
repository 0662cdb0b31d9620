"""A signal handler for the length of a block, the previous one back after it.
Used by the command line (Ctrl-C before the commands load) and by a batch
(SIGTERM stops it as Ctrl-C does); it imports nothing heavy, because the
command line sets its handler before anything else is loaded."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

Handler = Callable[[int, FrameType | None], object]


@contextmanager
def handling(signum: signal.Signals, handler: Handler) -> Iterator[None]:
    """Within the block ``handler`` answers ``signum``; afterwards the previous
    handler does again. Only the main thread may set handlers: elsewhere
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)
