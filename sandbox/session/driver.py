"""Running the async game code from synchronous code, anywhere.

``asyncio.run`` refuses to start inside a running event loop (a Jupyter cell, an
async web handler); there the coroutine runs on its own loop in a worker thread.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result (or raise its error)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-sync") as pool:
        return pool.submit(asyncio.run, coro).result()


def blocking(async_fn: Callable[P, Coroutine[Any, Any, T]], name: str, doc: str) -> Callable[P, T]:
    """The synchronous twin of ``async_fn``, called ``name``: the same parameters
    (one signature to keep), run with :func:`run_sync`; ``doc`` is its docstring."""

    @functools.wraps(async_fn)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(async_fn(*args, **kwargs))

    twin.__doc__ = doc
    twin.__name__ = twin.__qualname__ = name
    return twin
