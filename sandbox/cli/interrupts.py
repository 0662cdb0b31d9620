"""Ctrl-C ends every command with exit code 130 and no traceback, whenever it
comes. A command under way turns it into its own message (a game says how to
resume it); while the command line is still being imported there is nothing to
save, so the process just ends. This module imports nothing heavy: it has to
be in place before everything else is loaded."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from sandbox.core.signals import handling

EXIT_INTERRUPTED = 130


def _end_now(signum: int, frame: FrameType | None) -> None:
    # Nothing is open yet and nothing is written: there is no state to close,
    # and a KeyboardInterrupt raised inside an import would print a traceback.
    os._exit(EXIT_INTERRUPTED)


@contextmanager
def ctrl_c_ends_quietly() -> Iterator[None]:
    """Within the block, Ctrl-C ends the process with exit code 130 at once;
    the previous handler is back afterwards (Python's, which commands rely on)."""
    with handling(signal.SIGINT, _end_now):  # the main thread's alone
        yield
