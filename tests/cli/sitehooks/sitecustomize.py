"""Faults for a ``sandbox`` subprocess, loaded at its start through PYTHONPATH.

- ``SANDBOX_TEST_BLOCK="a,b"``: importing the top-level modules a and b fails
  as it does where they are not installed (ModuleNotFoundError).
- ``SANDBOX_TEST_SIGINT_AT="m"``: the process sends its process group a real
  SIGINT, as Ctrl-C at a terminal does, when it starts importing module m (run
  it in a session of its own). With
  ``SANDBOX_TEST_SIGINT_IN=worker`` only a batch's spawned workers do; with
  ``SANDBOX_TEST_SIGINT_ONCE=PATH`` only the first process to get there.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

_BLOCKED = {name for name in os.environ.get("SANDBOX_TEST_BLOCK", "").split(",") if name}
_SIGINT_AT = os.environ.get("SANDBOX_TEST_SIGINT_AT")
_ONLY_WORKERS = os.environ.get("SANDBOX_TEST_SIGINT_IN") == "worker"
_ONCE = os.environ.get("SANDBOX_TEST_SIGINT_ONCE")
# how spawn starts a child (read now: the child takes its parent's argv later)
_IS_WORKER = "--multiprocessing-fork" in sys.argv


def _claim() -> bool:
    if _ONCE is None:
        return True
    try:
        os.close(os.open(_ONCE, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class _Faults:
    """A meta-path finder that finds nothing: it only fails or interrupts."""

    fired = False

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name.split(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        if name == _SIGINT_AT and not self.fired and (_IS_WORKER or not _ONLY_WORKERS):
            self.fired = True
            if _claim():
                os.killpg(0, signal.SIGINT)
        return None


sys.meta_path.insert(0, _Faults())
