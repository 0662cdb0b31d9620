"""litellm, imported once, lazily (it takes seconds and ~200 MB), quietly and offline.

Its own module so that the client and the endpoint checks can both reach it
without importing each other.
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

_litellm: Any = None
litellm_import_s: float | None = None  # how long the one import took


# litellm's acompletion builds its coroutine in a worker thread; a call
# cancelled meanwhile (Ctrl-C, an aborted game) leaves that coroutine unawaited,
# and Python warns about it at shutdown. Nothing is lost: the call was
# cancelled on purpose, so only this one warning is silenced.
ORPHANED_CALL = r"coroutine '[\w.]*acompletion' was never awaited"


def silence_orphaned_calls() -> None:
    # Idempotent: warnings replaces an identical filter instead of adding one.
    warnings.filterwarnings("ignore", message=ORPHANED_CALL, category=RuntimeWarning)


def litellm_module() -> Any:
    """Import litellm once, quietly and offline (local price map, no debug banner)."""
    global _litellm, litellm_import_s
    silence_orphaned_calls()
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_LOG", "ERROR")
        started = time.perf_counter()
        import litellm

        litellm.suppress_debug_info = True
        _litellm = litellm
        litellm_import_s = time.perf_counter() - started
    return _litellm
