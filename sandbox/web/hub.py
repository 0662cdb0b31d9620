"""One web server per run for every page of the game: human seats, the host
panel and spectators. Starlette on uvicorn, in a background thread.

Every page is an *audience* with its own random token (``?t=...``); a request
without a known token, or with a ``Host`` header naming another site, gets 403
before any route runs. An audience only reaches its own board (what its page
shows) and, for a seat or the host, its own actions. The server knows nothing
else of the game, so it cannot leak anything else.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

import uvicorn
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.core.seat import AgentSetupError
from sandbox.web.board import Board
from sandbox.web.guard import (
    LOOPBACK,
    Guard,
    allowed_hosts,
    lan_address,
    refuse_socket,
)
from sandbox.web.limits import MAX_BODY_BYTES, BadBody, parse_body, wait_seconds
from sandbox.web.pages import render
from sandbox.web.words import ui

STARTUP_S = 10.0
# A page's socket only pushes the board; up to this many stray frames (refilled
# this many per second) are ignored, then the socket is refused (see FrameBudget).
PAGE_FRAME_BURST = 20.0
PAGE_FRAMES_PER_S = 2.0
FLOOD_REFUSAL = "this socket only sends the page's state; a page sends nothing on it"
STATIC_FILES = {
    "app.js": "text/javascript",
    "common.js": "text/javascript",
    "host.js": "text/javascript",
    "app.css": "text/css",
}


class HubError(AgentSetupError):
    """The server cannot start (e.g. the port is taken). One line."""


class NoOpenDecision(Exception):
    """An answer for a question that is not (or no longer) open."""


class SeatActions(Protocol):
    async def answer(self, request_id: object, answer: object) -> str: ...
    async def check(self, request_id: object, answer: object) -> str: ...
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


class FrameBudget:
    """How many frames a page's socket may still send (a token bucket). Pages
    send nothing on ``/ws``; a client that floods it is refused, so that it cannot
    keep the server's loop busy for the other pages."""

    def __init__(self, burst: float = PAGE_FRAME_BURST, per_s: float = PAGE_FRAMES_PER_S) -> None:
        self.burst, self.per_s = burst, per_s
        self.left = burst
        self.at = time.monotonic()

    def spend(self) -> bool:
        now = time.monotonic()
        self.left = min(self.burst, self.left + (now - self.at) * self.per_s)
        self.at = now
        if self.left < 1:
            return False
        self.left -= 1
        return True


class OneLineLog(logging.Formatter):
    """A server log record as one line on the person's terminal: the message
    only, never the traceback uvicorn attaches (a client that sends invalid
    UTF-8 or a broken frame must not fill the game's terminal)."""

    def format(self, record: logging.LogRecord) -> str:
        return "web server: " + " ".join(record.getMessage().split())


def _server_log() -> None:
    """uvicorn's loggers write through :class:`OneLineLog`, warnings and worse
    only, and no access log (set once: a series starts a server per run)."""
    server = logging.getLogger("uvicorn")
    if not any(isinstance(h.formatter, OneLineLog) for h in server.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(OneLineLog())
        server.addHandler(handler)
    server.setLevel(logging.WARNING)
    server.propagate = False
    logging.getLogger("uvicorn.access").disabled = True


def print_to_stderr(line: str) -> None:
    # stderr, so that `run --json` keeps stdout for its one JSON object.
    print(line, file=sys.stderr, flush=True)


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


class WebHub:
    """The run's web server. Start it once, add audiences, stop it at the end."""

    def __init__(self, host: str = LOOPBACK, port: int = 0) -> None:
        self.host = host
        self._audiences: list[Audience] = []
        self._lock = threading.Lock()
        self._socket = _bind(host, port)
        self.port: int = self._socket.getsockname()[1]
        self.allowed_hosts = allowed_hosts(host, self.port)
        self.shown_host = LOOPBACK if host in (LOOPBACK, "localhost") else lan_address(host)
        _server_log()
        self._server = uvicorn.Server(
            uvicorn.Config(
                Guard(self._app(), self),
                log_config=None,  # _server_log's, not uvicorn's (which prints tracebacks)
                log_level="warning",
                lifespan="off",
                timeout_graceful_shutdown=1,
                ws_max_size=MAX_BODY_BYTES,
            )
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + STARTUP_S
        while not self._server.started and self._thread.is_alive():
            if time.monotonic() > deadline:
                raise HubError(f"the web server on {host}:{self.port} did not start")
            time.sleep(0.01)
        self.stopped = False

    # ------------------------------------------------------------ audiences
    def add(self, audience: Audience) -> Audience:
        with self._lock:
            self._audiences.append(audience)
        return audience

    def remove(self, audience: Audience) -> None:
        with self._lock:
            if audience in self._audiences:
                self._audiences.remove(audience)

    def audiences(self) -> list[Audience]:
        with self._lock:
            return list(self._audiences)

    def find(self, token: str) -> Audience | None:
        """The audience of ``token``; every token is compared in constant time."""
        found = None
        for audience in self.audiences():
            if hmac.compare_digest(token.encode(), audience.token.encode()):
                found = audience
        return found

    def url(self, audience: Audience) -> str:
        return f"http://{self.shown_host}:{self.port}/?t={audience.token}"

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._socket.close()

    # ------------------------------------------------------------ the app
    def _app(self) -> Starlette:
        routes = [
            Route("/", self._page),
            Route("/static/{name}", self._static),
            Route("/api/state", self._state),
            Route("/api/answer", self._answer, methods=["POST"]),
            Route("/api/check", self._check, methods=["POST"]),
            Route("/api/leave", self._leave, methods=["POST"]),
            Route("/api/host/start", self._host_start, methods=["POST"]),
            Route("/api/host/take", self._host_take, methods=["POST"]),
            Route("/api/host/return", self._host_return, methods=["POST"]),
            Route("/api/host/watch", self._host_watch, methods=["POST"]),
            WebSocketRoute("/ws", self._push),
            WebSocketRoute("/agent", self._agent),
        ]
        return Starlette(routes=routes)

    async def _page(self, request: Request) -> Response:
        audience: Audience = request.scope["audience"]
        state = public_state(audience)
        context = {
            "t": ui(audience.language),
            "language": audience.language,
            "token": audience.token,
            "mode": audience.kind,
            "title": state.get("title") or audience.title,
            # the question the page was rendered with: its form works before the
            # first pushed state (a slow or blocked WebSocket)
            "boot": {
                "mode": audience.kind,
                "t": dict(ui(audience.language)),
                "request_id": state.get("request_id"),
                "error": state.get("error") or "",
            },
            # fragments rendered by pages.py with autoescaping: already safe
            "view_html": Markup(state.get("view_html", "")),
            "form_html": Markup(state.get("form_html", "")),
            "end_html": Markup(state.get("end_html", "")),
        }
        sent(audience, state)
        template = "host.html" if audience.kind == "host" else "page.html"
        return Response(render(template, **context), media_type="text/html; charset=utf-8")

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return _error(404, "not found")
        asset = resources.files("sandbox.web.assets").joinpath("static", name)
        return Response(asset.read_bytes(), media_type=STATIC_FILES[name])

    async def _state(self, request: Request) -> Response:
        audience: Audience = request.scope["audience"]
        since = _int_or_none(request.query_params.get("since"))
        wait = wait_seconds(request.query_params.get("wait"))
        if wait and since is not None:
            await audience.board.changed_since(since, wait)
        state = public_state(audience)
        sent(audience, state)
        return JSONResponse(state)

    async def _answer(self, request: Request) -> Response:
        return await self._seat_answer(request, record=True)

    async def _check(self, request: Request) -> Response:
        """The referee's dry run of an answer, nothing recorded (before the confirmation)."""
        return await self._seat_answer(request, record=False)

    async def _seat_answer(self, request: Request, record: bool) -> Response:
        audience: Audience = request.scope["audience"]
        if audience.seat is None:
            return _error(403, "only a seat's page can answer")
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict) or "answer" not in body:
            return _error(400, 'send JSON {"request": <id>, "answer": {...}}')
        seat = audience.seat
        try:
            act = seat.answer if record else seat.check
            refusal = await act(body.get("request"), body["answer"])
        except NoOpenDecision:
            return _error(409, "This question is no longer open; the page will refresh.")
        if refusal:
            return _error(422, refusal)
        return JSONResponse({"ok": True})

    async def _leave(self, request: Request) -> Response:
        audience: Audience = request.scope["audience"]
        if audience.seat is None:
            return _error(403, "only a seat's page can leave")
        audience.seat.leave()
        return JSONResponse({"ok": True})

    async def _host_start(self, request: Request) -> Response:
        def start(host: HostActions, body: dict[str, Any]) -> str:
            host.start()
            return ""

        return await self._host_action(request, start)

    async def _host_take(self, request: Request) -> Response:
        return await self._host_action(request, lambda host, body: host.take(_seat_of(body)))

    async def _host_return(self, request: Request) -> Response:
        def hand_back(host: HostActions, body: dict[str, Any]) -> str:
            host.hand_back(_seat_of(body), str(body.get("to", "configured")))
            return ""

        return await self._host_action(request, hand_back)

    async def _host_watch(self, request: Request) -> Response:
        return await self._host_action(request, lambda host, body: host.watch(str(body["target"])))

    async def _host_action(
        self, request: Request, action: Callable[[HostActions, dict[str, Any]], str]
    ) -> Response:
        audience: Audience = request.scope["audience"]
        if audience.host is None:
            return _error(403, "only the host panel can do this")
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict):
            return _error(400, "send a JSON object")
        try:
            url = action(audience.host, body)
        except (KeyError, ValueError) as err:
            return _error(400, str(err.args[0]) if err.args else "bad request")
        return JSONResponse({"ok": True, "url": url})

    async def _push(self, websocket: WebSocket) -> None:
        """Send the board now and after every change, until the page goes away."""
        audience: Audience = websocket.scope["audience"]
        await websocket.accept()
        subscriber = audience.board.subscribe()
        incoming = asyncio.ensure_future(websocket.receive())
        budget = FrameBudget()
        try:
            last: int | None = None
            while True:
                # Only the latest state is ever sent: a page that reads slowly (or
                # never) holds one send at a time, and skips the versions it missed.
                subscriber.changed.clear()
                state = public_state(audience)
                if state["version"] != last:
                    await websocket.send_text(encode_state(audience, state))
                    last = state["version"]
                    sent(audience, state)
                changed = asyncio.ensure_future(subscriber.changed.wait())
                done, _ = await asyncio.wait(
                    {incoming, changed}, return_when=asyncio.FIRST_COMPLETED
                )
                if incoming in done:
                    changed.cancel()
                    if incoming.result()["type"] == "websocket.disconnect":
                        return
                    if not budget.spend():
                        await websocket.send_text(json.dumps({"ok": False, "error": FLOOD_REFUSAL}))
                        await websocket.close(code=1008)
                        return
                    incoming = asyncio.ensure_future(websocket.receive())  # pages send nothing
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        finally:
            incoming.cancel()
            audience.board.unsubscribe(subscriber)

    async def _agent(self, websocket: WebSocket) -> None:
        """A remote program's socket (only a remote seat's token opens it)."""
        audience: Audience = websocket.scope["audience"]
        if audience.socket is None:
            await refuse_socket(
                websocket.scope, websocket.send, "only a remote seat's token opens /agent"
            )
            return
        await audience.socket(websocket)


async def _json_body(request: Request) -> object | Response:
    """The request's JSON, read at most MAX_BODY_BYTES; a 400/413 response if not."""
    declared = _int_or_none(request.headers.get("content-length"))
    if declared is not None and declared > MAX_BODY_BYTES:
        return _error(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return _error(413, f"the body is larger than {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    try:
        return parse_body(b"".join(chunks))
    except BadBody as err:
        return _error(400, str(err))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"ok": False, "error": message}, status)


def _seat_of(body: dict[str, Any]) -> int:
    seat = body.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ValueError('send JSON {"seat": <seat number>}')
    return seat


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise HubError(
            f"cannot serve the web pages on {host}:{port} ({err.strerror or err}); "
            "choose another port or leave 'port' out for a free one"
        ) from None
    sock.listen(64)
    sock.setblocking(False)
    return sock
