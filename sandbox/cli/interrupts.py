"""Ctrl-C ends every command with exit code 130 and no traceback, whenever it
comes. A command under way turns it into its own message (a game says how to
resume it); while the command line is still being imported there is nothing to
save, so the process just ends. This module imports nothing heavy: it has to
be in place before everything else is loaded."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

EXIT_INTERRUPTED = 130


def _end_now(signum: int, frame: FrameType | None) -> None:
    # Nothing is open yet and nothing is written: there is no state to close,
    # and a KeyboardInterrupt raised inside an import would print a traceback.
    os._exit(EXIT_INTERRUPTED)


@contextmanager
def ctrl_c_ends_quietly() -> Iterator[None]:
    """Within the block, Ctrl-C ends the process with exit code 130 at once;
    the previous handler is back afterwards (Python's, which commands rely on)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set signal handlers
        return
    previous = signal.signal(signal.SIGINT, _end_now)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
