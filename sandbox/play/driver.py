"""Running the async game code from synchronous code, anywhere.

``asyncio.run`` refuses to start inside a running event loop (a Jupyter cell, an
async web handler); there the coroutine runs on its own loop in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result (or raise its error)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-sync") as pool:
        return pool.submit(asyncio.run, coro).result()
