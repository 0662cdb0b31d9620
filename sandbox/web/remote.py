"""A seat played by a program outside the sandbox, over one WebSocket.

The program connects to ``ws://HOST:PORT/agent?t=TOKEN`` (the run's server:
loopback by default, the same Host and token checks as the people's pages) and
is sent, for each decision of its seat, the seat's observation as JSON
(:mod:`sandbox.agents.observation`: the legal view, the same text an LLM seat
is given, the request with its fields, options, schema and masks). It answers
with JSON; the referee's dry run checks the answer on the game's own loop, and
a refusal comes back with the referee's message while the question stays open,
until ``max_invalid`` answers were refused (``attempts_left`` counts down from
``max_invalid``, at least one answer), then the referee's fallback (reason
``invalid``). No answer in ``decision_timeout_s``: the fallback, reason
``timeout``. A program that goes away: the open question waits
``reconnect_s`` for it, then every decision falls back (reason
``disconnected``) until it connects again; a reconnect is sent the open
question. The protocol, message by message: docs/remote-agents.md.

The transcript records the seat as it records an LLM seat: every answer is a
referee-only call line (``model`` "remote", ``repair`` = the answer's index,
``raw``, then ``parsed`` or the refusal as ``error`` "invalid: ..."), so
repairs are counted the same way; each disconnect and reconnect is a call line
too (``link``: "disconnected" / "reconnected", ``attempt`` 0: no answer),
recorded with the seat's decision during or after which it happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.agents.observation import observe
from sandbox.core.errors import IllegalDecision, RefereeError
from sandbox.core.seat import (
    FALLBACK_INVALID,
    FALLBACK_TIMEOUT,
    Agent,
    AgentAnswer,
    DecisionContext,
    RemoteSettings,
    Seating,
)
from sandbox.web.board import Board
from sandbox.web.hub import Audience, WebHub

PROTOCOL = 1
FALLBACK_DISCONNECTED = "disconnected"  # the remote program was not connected
KEEP_MESSAGES = 32  # sent messages a slow socket may still be catching up on
POLL_S = 0.05


MODEL = "remote"  # the call lines' model
LINK = "link"  # a call line's key for a connection event


@dataclass
class _Open:
    ctx: DecisionContext
    future: asyncio.Future[AgentAnswer]
    message: dict[str, Any]
    refusals: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    asked_at: float = field(default_factory=time.monotonic)

    def record(self, answer: object) -> dict[str, Any]:
        """The call line of one answer (its outcome is added by the caller)."""
        now = time.monotonic()
        line: dict[str, Any] = {
            "model": MODEL,
            "attempt": 1,
            "repair": len(self.calls),
            "raw": answer if isinstance(answer, str) else _dump(answer),
            "latency_ms": round((now - self.asked_at) * 1000),
        }
        self.asked_at = now
        self.calls.append(line)
        return line


@dataclass
class _Link:
    """The connection state, shared by the game loop and the server thread."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    sockets: int = 0
    ever: bool = False
    gone: bool = False  # disconnected for longer than the grace period
    since: float = 0.0  # when the last socket closed
    events: list[dict[str, Any]] = field(default_factory=list)  # call lines not yet recorded

    def note(self, what: str) -> None:
        """A disconnect or reconnect, for the transcript (call under ``lock``)."""
        self.events.append({"model": MODEL, "attempt": 0, "repair": 0, LINK: what})

    def take(self) -> list[dict[str, Any]]:
        with self.lock:
            taken, self.events = self.events, []
        return taken


class RemoteSeat(Agent):
    """One seat's endpoint on the run's server; ``url`` is the program's address."""

    kind = "remote"

    def __init__(
        self,
        seat: int,
        hub: WebHub,
        *,
        token: str | None = None,
        settings: RemoteSettings | None = None,
        language: str = "en",
    ) -> None:
        self.seat = seat
        self.hub = hub
        self.settings = settings or RemoteSettings()
        self.language = language
        self.board = Board(outbox=[], sent=0)
        self.audience = Audience("agent", self.board, f"seat {seat} (remote)", language)
        if token is not None:
            self.audience.token = token
        self.audience.socket = self.serve
        hub.add(self.audience)
        self._open: _Open | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._link = _Link()
        self._variant = ""
        self._count = 0
        self.on_close: Callable[[RemoteSeat], None] | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.hub.shown_host}:{self.hub.port}/agent?t={self.audience.token}"

    def attach(self, seating: Seating) -> None:
        self._variant = seating.variant.name

    def describe(self) -> dict[str, Any]:
        # Never the token: the transcript header is shared with researchers.
        return {
            "kind": self.kind,
            "decision_timeout_s": self.settings.decision_timeout_s,
            "max_invalid": self.settings.max_invalid,
        }

    # ------------------------------------------------------------ the game side
    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        self._loop = asyncio.get_running_loop()
        if not await self._reachable():
            note = "the remote program is not connected"
            return AgentAnswer(
                None, note=note, fallback_reason=FALLBACK_DISCONNECTED, calls=self._link.take()
            )
        message = {
            "type": "observation",
            "request_id": ctx.request.id,
            "deadline_s": self.settings.decision_timeout_s,
            "attempts_left": self.attempts,
            "observation": observe(ctx, self.language),
        }
        future: asyncio.Future[AgentAnswer] = self._loop.create_future()
        pending = self._open = _Open(ctx, future, message)
        self._send(message)
        try:
            answer = await asyncio.wait_for(future, self.settings.decision_timeout_s)
        except TimeoutError:
            answer = AgentAnswer(None, note="no answer in time", fallback_reason=FALLBACK_TIMEOUT)
        finally:
            self._open = None
        if answer.payload is None:
            reason = answer.fallback_reason
            self._send({"type": "fallback", "request_id": ctx.request.id, "reason": reason})
        # Every answer and connection event of this decision, as call lines;
        # a repair is an answer after the first (as an LLM seat's).
        answer.calls = [*self._link.take(), *pending.calls]
        answer.repairs = max(0, len(pending.calls) - 1)
        return answer

    @property
    def attempts(self) -> int:
        """Answers allowed per decision: ``max_invalid`` refused answers end
        it in the fallback (one answer at least)."""
        return max(1, self.settings.max_invalid)

    async def _reachable(self) -> bool:
        """Whether a program is (or soon will be) there to answer: the first
        connection is awaited ``connect_timeout_s``, a lost one ``reconnect_s``;
        after that, decisions fall back at once until it connects again."""
        link = self._link
        with link.lock:
            if link.sockets:
                return True
            if link.gone:
                return False
            wait = (
                self.settings.reconnect_s - (time.monotonic() - link.since)
                if link.ever
                else self.settings.connect_timeout_s
            )
        deadline = time.monotonic() + max(0.0, wait)
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
            with link.lock:
                if link.sockets:
                    return True
        with link.lock:
            link.gone = not link.sockets
            return not link.gone

    def _lost(self) -> None:
        """On the game loop, ``reconnect_s`` after the last socket closed: an
        open question falls back if nobody came back."""
        with self._link.lock:
            if self._link.sockets:
                return
            self._link.gone = True
        pending = self._open
        if pending is not None and not pending.future.done():
            note = "the remote program disconnected"
            answer = AgentAnswer(None, note=note, fallback_reason=FALLBACK_DISCONNECTED)
            pending.future.set_result(answer)

    async def close(self) -> None:
        """The game is over: the endpoint leaves the server (a program still
        connected has had ``game_over``; its socket is closed)."""
        self.hub.remove(self.audience)
        if self.on_close is not None:
            self.on_close(self)
            self.on_close = None
        self._send({"type": "closed"})

    def finish(self, results: Mapping[str, Any]) -> None:
        """The game is over: its result, for the program (the run calls this)."""
        self._send({"type": "game_over", **results})

    def _send(self, message: dict[str, Any]) -> None:
        self._count += 1
        outbox = [*self.board.get("outbox", []), {**message, "n": self._count}]
        self.board.update(outbox=outbox[-KEEP_MESSAGES:], sent=self._count)

    def _judge(self, request_id: object, answer: object) -> dict[str, Any]:
        """On the game loop: check an answer against the open question."""
        pending = self._open
        if pending is None or pending.future.done() or pending.ctx.request.id != request_id:
            return {"type": "error", "error": f"no open question with request_id {request_id!r}"}
        line = pending.record(answer)
        try:
            payload = pending.ctx.validate(answer)
        except RefereeError as err:
            text = err.render() if isinstance(err, IllegalDecision) else str(err)
            return self._refuse(pending, text, line)
        line["parsed"] = payload
        pending.future.set_result(AgentAnswer(payload))
        return {"type": "accepted", "request_id": request_id}

    def _refuse(self, pending: _Open, error: str, line: dict[str, Any]) -> dict[str, Any]:
        """One refusal more for the open question (``line``: its answer's call
        line); at ``max_invalid`` refusals, the fallback."""
        line["error"] = f"invalid: {error}"  # as an LLM seat's refused answer
        pending.refusals += 1
        left = self.attempts - pending.refusals
        if left <= 0:
            note = f"{pending.refusals} refused answers; the last: {error}"
            fallback = AgentAnswer(None, note=note, fallback_reason=FALLBACK_INVALID)
            pending.future.set_result(fallback)
        request_id = pending.ctx.request.id
        return {"type": "refused", "request_id": request_id, "error": error, "attempts_left": left}

    def _refuse_garbage(self, error: str, raw: str) -> dict[str, Any]:
        """A message that is no answer at all counts against the open question."""
        pending = self._open
        if pending is None or pending.future.done():
            return {"type": "error", "error": error}
        return self._refuse(pending, error, pending.record(raw))

    # ------------------------------------------------------------ the server side
    async def serve(self, websocket: WebSocket) -> None:
        """One connection of the program: hello, the open question, then every
        new message; answers are judged on the game loop."""
        await websocket.accept()
        with self._link.lock:
            if self._link.ever and not self._link.sockets:
                self._link.note("reconnected")
            self._link.sockets += 1
            self._link.ever, self._link.gone = True, False
        subscriber = self.board.subscribe()
        incoming = asyncio.ensure_future(websocket.receive())
        try:
            await websocket.send_text(_dump(self._hello()))
            sent = int(self.board.get("sent", 0))
            pending = self._open
            if pending is not None and not pending.future.done():
                await websocket.send_text(_dump(pending.message))
            while True:
                subscriber.changed.clear()
                for message in self.board.get("outbox", []):
                    if message["n"] <= sent:
                        continue
                    if message["type"] == "closed":
                        await websocket.close(code=1000)
                        return
                    await websocket.send_text(_dump(message))
                    sent = message["n"]
                changed = asyncio.ensure_future(subscriber.changed.wait())
                done, _ = await asyncio.wait(
                    {incoming, changed}, return_when=asyncio.FIRST_COMPLETED
                )
                if incoming not in done:
                    continue
                changed.cancel()
                received = incoming.result()
                if received["type"] == "websocket.disconnect":
                    return
                reply = await self._on_message(received.get("text"), received.get("bytes"))
                if reply is not None:
                    await websocket.send_text(_dump(reply))
                incoming = asyncio.ensure_future(websocket.receive())
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        finally:
            incoming.cancel()
            self.board.unsubscribe(subscriber)
            with self._link.lock:
                self._link.sockets -= 1
                self._link.since = time.monotonic()
                last = not self._link.sockets
                if last:
                    self._link.note("disconnected")
            loop = self._loop
            if last and loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):  # the game loop closed meanwhile
                    grace = self.settings.reconnect_s
                    loop.call_soon_threadsafe(loop.call_later, grace, self._lost)

    def _hello(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "seat": self.seat,
            "variant": self._variant,
            "language": self.language,
            "max_invalid": self.settings.max_invalid,
        }

    async def _on_message(self, text: str | None, data: bytes | None) -> dict[str, Any] | None:
        raw = text if text is not None else (data or b"").decode(errors="replace")
        try:
            message = json.loads(text if text is not None else (data or b"").decode())
        except (ValueError, UnicodeDecodeError):
            error = "not a JSON message"
            return await self._on_game_loop(lambda: self._refuse_garbage(error, raw))
        if not isinstance(message, dict) or message.get("type") not in ("answer", "ping"):
            error = 'expected {"type": "answer", "request_id": ..., "answer": {...}} or a ping'
            return await self._on_game_loop(lambda: self._refuse_garbage(error, raw))
        if message["type"] == "ping":
            return {"type": "pong"}
        request_id, answer = message.get("request_id"), message.get("answer")
        return await self._on_game_loop(lambda: self._judge(request_id, answer))

    async def _on_game_loop(self, work: Any) -> dict[str, Any]:
        """Run ``work`` on the game's loop (the referee is not thread-safe)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return {"type": "error", "error": "no open question"}
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        server_loop = asyncio.get_running_loop()

        def run() -> None:
            result = work()
            server_loop.call_soon_threadsafe(_settle, done, result)

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:
            return {"type": "error", "error": "the game is over"}
        return await asyncio.wait_for(done, 10.0)


def _settle(future: asyncio.Future[dict[str, Any]], result: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(result)


def _dump(message: Any) -> str:
    with contextlib.suppress(TypeError):
        return json.dumps(message, ensure_ascii=False)
    return json.dumps(message, ensure_ascii=False, default=str)
