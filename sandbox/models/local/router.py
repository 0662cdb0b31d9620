"""Which server slot a local call goes to, and whose evaluated prompt it
starts from (SANDBOX_LOCAL_ROUTE=1; off by default).

llama-server keeps one evaluated prompt per slot and reuses its longest
common prefix with the next prompt sent to that slot. With the shared record
(``[llm] shared_record``), every seat's prompt starts with the same primer
and the same public record, so the best start for a seat's call is often
another seat's slot: the one that last read the most of the record. The
server's own choice did not find it (it picks a slot by prefix share and
restores from its RAM cache only when a slot would lose half of its
prompt), so the client chooses:

1. the free slot whose last prompt shares the longest prefix with this one
   (ties: the least recently used) is the call's slot;
2. if another slot shares a longer prefix by at least ``MIN_GAIN_CHARS``,
   its state is saved to a file (llama-server's ``/slots/{id}?action=save``,
   under the server's ``--slot-save-path``; once per state) and restored into
   the call's slot (``action=restore``), so the call reads only what follows
   that prefix. The source may be busy with a call, but not still waiting
   for a state of its own; a busy source is saved once its call has ended
   (the call's request may not have reached the server yet, and a save sent
   before it would hold the slot's older prompt: measured, every vote of a
   sealed step then re-read the last speech). A sealed step's first request
   thus reads the record's last speech once, and the others start from it.

Prefixes are compared on the messages' text, an estimate of the tokens the
server compares; a wrong guess costs only speed, never an answer: the server
checks the token prefix itself (``cache_prompt``).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from sandbox.models.prefix import common_prefix

# A copy costs a save (once per state) and a restore, ~30 MB each for a
# 1,500-token SmolLM2 prompt: worth it once it spares ~50 tokens of reading.
MIN_GAIN_CHARS = 200
# Slot save/restore calls are quick (a file of the slot's KV cells), but wait
# for the slot to be idle.
SLOT_ACTION_TIMEOUT_S = 60.0


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The messages as one string, in the order the chat template lays them out."""
    return "\x00".join(f"{m.get('role', '')}\x01{m.get('content', '')}" for m in messages)


@dataclass
class _Slot:
    text: str = ""  # the last prompt sent to it (what its KV holds a prefix of)
    busy: bool = False
    used: int = 0  # a clock tick: when it last took a call
    saved: str | None = None  # the text whose state its save file holds
    copying: bool = False  # a state is being restored into it: not a source yet
    file_lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(frozen=True)
class Route:
    """One call's slot and the slot its state was copied from (or None)."""

    slot: int
    copied_from: int | None
    shared_chars: int  # the prefix the call starts from, as the router estimated it


class SlotRouter:
    """The slots of one llama-server, as seen by the calls of one event loop."""

    def __init__(self, base_url: str, slots: int, http: httpx.AsyncClient | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._slots = [_Slot() for _ in range(max(1, slots))]
        self._free = asyncio.Condition()
        self._clock = 0
        self._http = http
        self.copies = 0  # states copied between slots (for the bench)

    @asynccontextmanager
    async def route(self, messages: Sequence[Mapping[str, Any]]) -> AsyncIterator[Route]:
        """Hold a slot for one call; copy a better-prefixed slot's state into it first."""
        text = prompt_text(messages)
        async with self._free:
            await self._free.wait_for(lambda: any(not s.busy for s in self._slots))
            target, source, shared = self._choose(text)
            slot = self._slots[target]
            self._clock += 1
            # Its KV holds this prompt once the server has read it, and a save
            # of a busy slot waits for it (the server defers it): later calls
            # may copy from it at once.
            slot.text, slot.busy, slot.used = text, True, self._clock
        try:
            copied = await self._copy(source, target) if source is not None else False
            yield Route(target, source if copied else None, shared)
        finally:
            async with self._free:
                slot.busy = False
                self._free.notify_all()

    def _choose(self, text: str) -> tuple[int, int | None, int]:
        shares = [common_prefix(s.text, text) for s in self._slots]
        free = [i for i, s in enumerate(self._slots) if not s.busy]
        target = max(free, key=lambda i: (shares[i], -self._slots[i].used))
        others = (i for i, s in enumerate(self._slots) if i != target and not s.copying)
        best = max(others, key=lambda i: shares[i], default=target)
        if best != target and shares[best] - shares[target] >= MIN_GAIN_CHARS:
            return target, best, shares[best]
        return target, None, shares[target]

    async def _copy(self, source: int, target: int) -> bool:
        """Source's evaluated prompt into target (both by the server's slot
        files). False when the server refused (the call then reads it all)."""
        src, dst = self._slots[source], self._slots[target]
        name = f"slot-{source}.bin"
        dst.copying = True
        try:
            async with self._free:  # a busy source's state is final when its call ends
                await self._free.wait_for(lambda: not src.busy)
            async with src.file_lock:
                text = src.text
                if src.saved != text:
                    src.saved = None
                    await self._action(source, "save", name)
                    src.saved = text
                await self._action(target, "restore", name)
        except (httpx.HTTPError, ValueError):
            return False
        finally:
            dst.copying = False
        self.copies += 1
        return True

    async def _action(self, slot: int, action: str, filename: str) -> None:
        client = self._http or _shared_client()
        answer = await client.post(
            f"{self.base_url}/slots/{slot}",
            params={"action": action},
            json={"filename": filename},
            timeout=SLOT_ACTION_TIMEOUT_S,
        )
        answer.raise_for_status()


# One router per server and event loop: every game the loop plays shares the
# server's slots, so they must share one picture of them.
_routers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, SlotRouter]] = (
    weakref.WeakKeyDictionary()
)
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


def router_for(api_base: str, slots: int) -> SlotRouter:
    """This loop's router for the server at ``api_base`` (its OpenAI ``/v1`` URL)."""
    per_loop = _routers.setdefault(asyncio.get_running_loop(), {})
    base = api_base.rstrip("/").removesuffix("/v1")
    if base not in per_loop:
        per_loop[base] = SlotRouter(base, slots)
    return per_loop[base]


def _shared_client() -> httpx.AsyncClient:
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = httpx.AsyncClient()
    return client
