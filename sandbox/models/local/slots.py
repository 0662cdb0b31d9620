"""One server slot per seat (opt-in: SANDBOX_LOCAL_PIN_SLOTS=1): the request
fields that pin a seat's calls to its own slot, so each seat's evaluated
prompt stays in that slot's KV window between its decisions (llama-server's
``id_slot``; ``cache_prompt`` keeps the window's prefix and re-reads only
what follows it).

Without pinning, llama.cpp gives a request the idle slot whose prompt shares
the longest prefix with it and, when a slot passes to another seat, saves and
restores prompts through its RAM cache; with fewer slots than seats that
restored only part of a seat's prefix (43% of prompt tokens from the cache in
issue 24's game). With a slot per seat nothing is moved: a seat's next
decision finds its previous prompt where it left it. Measured for issue 24,
that kept less than llama.cpp's own choice, hence off by default: with a
6-item history window the record has moved on between two decisions of a
seat (and its first line counts the omitted events), so a seat's previous
prompt shares only its system message (~300 tokens) with its next one; and a
pinned seat's first call reads its whole prompt, because llama-server looks
in its RAM cache for a pinned slot only when the slot would keep under half
of its prompt, and for an empty slot that share is 0/0, never under a half
(its get_available_slot). The client's router (router.py) copies slots
explicitly instead.

Several games on one server (a batch) share the slots by seat number; a
seat's calls then wait for its slot, and two games' seats evict each other's
prefix (still correct, only slower).
"""

from __future__ import annotations

from typing import Any

from sandbox.models.local.settings import ServerSettings


def slot_of(seat: int, slots: int) -> int:
    """The slot a seat's calls go to (seats are numbered from 1)."""
    return (seat - 1) % max(1, slots)


def request_fields(seat: int | None, settings: ServerSettings | None = None) -> dict[str, Any]:
    """What a local call adds to its body: its seat's pinned slot. Empty when
    pinning is off (SANDBOX_LOCAL_PIN_SLOTS=0) or the seat is unknown."""
    settings = settings or ServerSettings.from_env()
    if seat is None or not settings.pin_slots or settings.route:
        return {}  # routed calls get their slot from router.py
    return {"id_slot": slot_of(seat, settings.slots), "cache_prompt": True}


def takes_grammar(settings: ServerSettings | None = None) -> bool:
    """Whether local calls send the constrained route's GBNF grammar
    (SANDBOX_LOCAL_GRAMMAR=0: the JSON-schema form, as before issue 24)."""
    return (settings or ServerSettings.from_env()).grammar
