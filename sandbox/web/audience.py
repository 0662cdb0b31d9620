"""An audience: one kind of page (a seat, a spectator, the host panel) behind
one token, and what the server sends it — its board as a page's state, with a
deadline turned into seconds left and a spectator's board only as far as the
table allows at this moment.

The server (``web/hub.py``) and its routes (``web/routes.py``) know the game only
through audiences: a board to push and, for a seat or the host, its actions.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.websockets import WebSocket

from sandbox.web.board import Board


class NoOpenDecision(Exception):
    """An answer for a question that is not (or no longer) open."""


@dataclass(frozen=True)
class Checked:
    """The referee's dry run of an answer: its refusal in words ('' if legal) and,
    if legal, the answer's words the other seats would read changed (field ->
    text as they will read it)."""

    refusal: str = ""
    shown: Mapping[str, str] = field(default_factory=dict)


class SeatActions(Protocol):
    async def answer(self, request_id: object, answer: object) -> str: ...
    async def check(self, request_id: object, answer: object) -> Checked: ...
    def leave(self) -> None: ...
    def shown(self, request_id: object) -> None: ...


class HostActions(Protocol):
    def start(self) -> None: ...
    def take(self, seat: int) -> str: ...
    def hand_back(self, seat: int, to: str = "configured") -> None: ...
    def watch(self, target: str) -> str: ...


@dataclass(eq=False)
class Audience:
    """One kind of page (a seat, a spectator, the host) behind one token."""

    kind: str  # "seat", "watch" or "host"
    board: Board
    title: str
    language: str = "en"
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    seat: SeatActions | None = None
    host: HostActions | None = None
    # kind "agent": a remote program's seat, which serves its own socket (web/remote.py)
    socket: Callable[[WebSocket], Awaitable[None]] | None = None
    # A spectator's check of its board against who sits at the table now
    # (web/follow.py): what of the state may be sent, asked at every push.
    vet: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # (version, JSON text) of the last state pushed without a clock: fifty pages of
    # one spectator link get one encoding per change, not fifty (server loop only)
    encoded: tuple[int, str] | None = field(default=None, repr=False)


def encode_state(audience: Audience, state: dict[str, Any]) -> str:
    """``state`` as the JSON text a page is sent, reused while its version holds."""
    cached = audience.encoded
    # A withheld state (see Audience.vet) shares its version with the full one: never cached.
    reusable = state["remaining_s"] is None and not state.get("withheld")
    if reusable and cached is not None and cached[0] == state["version"]:
        return cached[1]
    text = json.dumps(state, ensure_ascii=False)
    if reusable:
        audience.encoded = (state["version"], text)
    return text


def public_state(audience: Audience) -> dict[str, Any]:
    """The board as sent to a page: a deadline becomes the seconds left now, and
    a spectator's board only as far as the table allows at this moment."""
    state = audience.board.snapshot()
    if audience.vet is not None:
        state = audience.vet(state)
    deadline = state.pop("deadline", None)
    state["remaining_s"] = None if deadline is None else max(0.0, deadline - time.monotonic())
    return state


def sent(audience: Audience, state: dict[str, Any]) -> None:
    """A page was sent ``state``: an open question in it counts as shown (its
    time limit starts)."""
    if audience.seat is not None and state.get("request_id") is not None:
        audience.seat.shown(state["request_id"])
