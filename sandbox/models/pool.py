"""One HTTP client per (event loop, server, key), shared by every seat that
calls it, and closed when the last of them lets go.

Why: a client per call (or litellm's own per-base-URL clients, which live
forever) left about eleven keep-alive sockets and the fake server's handler
threads behind per game, so a long batch ran out of file descriptors. Here
each LLM seat takes a :class:`Lease` when it first resolves its endpoint and
returns it in ``Agent.close()``; the last return closes the client and its
connections.

Many games in one process: games played on the same event loop (e.g. a
batch that keeps several games in flight with ``asyncio.gather``) share one
client per server and key, hence one connection pool, and one concurrency
limit per model (``client.model_semaphore``). Games on different loops (one
``asyncio.run`` each) get their own, since asyncio objects belong to a loop.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from typing import Any

PoolKey = tuple[str, str]
# Connections kept open per client: enough for a 16-seat sealed step at the
# default concurrency, small enough that an idle pool holds few sockets.
MAX_KEEPALIVE = 16


@dataclass
class _Entry:
    client: Any  # openai.AsyncOpenAI
    users: int = 0


@dataclass
class _LoopPool:
    entries: dict[PoolKey, _Entry] = field(default_factory=dict)


_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopPool] = (
    weakref.WeakKeyDictionary()
)


def new_openai_client(base_url: str | None, api_key: str, timeout_s: float = 600.0) -> Any:
    """An AsyncOpenAI client with its own retries off (tenacity is the only layer)."""
    import httpx2  # the openai SDK's HTTP library (3.x)
    import openai

    limits = httpx2.Limits(max_keepalive_connections=MAX_KEEPALIVE, max_connections=None)
    # Plain HTTP (our own loopback servers) needs no certificates; loading the
    # CA bundle cost ~0.25 s per client, i.e. per game.
    plain = bool(base_url) and str(base_url).startswith("http://")
    http = openai.DefaultAsyncHttpxClient(limits=limits, timeout=timeout_s, verify=not plain)
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, http_client=http)


class Lease:
    """A seat's hold on the shared client for one server and key."""

    def __init__(self, base_url: str | None, api_key: str) -> None:
        self.key: PoolKey = (base_url or "", api_key)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._entry: _Entry | None = None

    def client(self) -> Any:
        """The shared client on the running loop (taken on first use)."""
        loop = asyncio.get_running_loop()
        if self._entry is not None and self._loop is loop:
            return self._entry.client
        if self._entry is not None:  # a new loop (e.g. a resumed game): let the old go
            self._drop()
        pool = _pools.setdefault(loop, _LoopPool())
        entry = pool.entries.get(self.key)
        if entry is None:
            entry = _Entry(new_openai_client(self.key[0] or None, self.key[1]))
            pool.entries[self.key] = entry
        entry.users += 1
        self._loop, self._entry = loop, entry
        return entry.client

    async def release(self) -> None:
        """Return the hold; the last one closes the client (and its sockets)."""
        client = self._drop()
        if client is not None:
            await client.close()

    def _drop(self) -> Any:
        entry, loop = self._entry, self._loop
        self._entry, self._loop = None, None
        if entry is None or loop is None:
            return None
        entry.users -= 1
        if entry.users > 0:
            return None
        pool = _pools.get(loop)
        if pool is not None and pool.entries.get(self.key) is entry:
            del pool.entries[self.key]
        return entry.client


def open_clients() -> int:
    """Shared clients currently open on any loop (for tests and leak checks)."""
    return sum(len(p.entries) for p in list(_pools.values()))
