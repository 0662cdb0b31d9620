"""The routes of the run's web server: the page, its static files, its state
(polled or pushed on ``/ws``), a seat's answers and the host's actions.

Every route finds its audience in the request's scope, put there by the guard
(``web/guard.py``) once the token matched; a route reaches only that audience's
board and actions, so it cannot leak anything else of the game.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from sandbox.web.audience import (
    Audience,
    Checked,
    HostActions,
    NoOpenDecision,
    encode_state,
    public_state,
    sent,
)
from sandbox.web.guard import refuse_socket
from sandbox.web.limits import MAX_BODY_BYTES, BadBody, parse_body, wait_seconds
from sandbox.web.pages import render
from sandbox.web.words import ui

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


def app(extra: Sequence[BaseRoute] = ()) -> Starlette:
    """The server's application (wrapped in the guard by ``web/hub.py``);
    ``extra``: more routes (the lobby's, issue 38 item 2)."""
    routes: list[BaseRoute] = [
        *extra,
        Route("/", _page),
        Route("/static/{name}", _static),
        Route("/api/state", _state),
        Route("/api/answer", _answer, methods=["POST"]),
        Route("/api/check", _check, methods=["POST"]),
        Route("/api/leave", _leave, methods=["POST"]),
        Route("/api/host/start", _host_start, methods=["POST"]),
        Route("/api/host/take", _host_take, methods=["POST"]),
        Route("/api/host/return", _host_return, methods=["POST"]),
        Route("/api/host/watch", _host_watch, methods=["POST"]),
        WebSocketRoute("/ws", _push),
        WebSocketRoute("/agent", _agent),
    ]
    return Starlette(routes=routes)


async def _page(request: Request) -> Response:
    audience: Audience = request.scope["audience"]
    if audience.kind == "lobby":  # the lobby's own token: its page (web/lobby_routes.py)
        return RedirectResponse(f"/lobby?t={audience.token}", 303)
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
            "unsent": state.get("unsent") or "",
        },
        # fragments rendered by pages.py with autoescaping: already safe
        "view_html": Markup(state.get("view_html", "")),
        "form_html": Markup(state.get("form_html", "")),
        "end_html": Markup(state.get("end_html", "")),
    }
    sent(audience, state)
    template = "host.html" if audience.kind == "host" else "page.html"
    return Response(render(template, **context), media_type="text/html; charset=utf-8")


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        return _error(404, "not found")
    asset = resources.files("sandbox.web.assets").joinpath("static", name)
    return Response(asset.read_bytes(), media_type=STATIC_FILES[name])


async def _state(request: Request) -> Response:
    audience: Audience = request.scope["audience"]
    since = _int_or_none(request.query_params.get("since"))
    wait = wait_seconds(request.query_params.get("wait"))
    if wait and since is not None:
        await audience.board.changed_since(since, wait)
    state = public_state(audience)
    sent(audience, state)
    return JSONResponse(state)


async def _answer(request: Request) -> Response:
    return await _seat_answer(request, record=True)


async def _check(request: Request) -> Response:
    """The referee's dry run of an answer, nothing recorded (before the confirmation)."""
    return await _seat_answer(request, record=False)


async def _seat_answer(request: Request, record: bool) -> Response:
    audience: Audience = request.scope["audience"]
    body = await _body_for(request, audience.seat is not None, "only a seat's page can answer")
    if isinstance(body, Response):
        return body
    if not isinstance(body, dict) or "answer" not in body or audience.seat is None:
        return _error(400, 'send JSON {"request": <id>, "answer": {...}}')
    seat, request_id = audience.seat, body.get("request")
    try:
        if record:
            checked = Checked(await seat.answer(request_id, body["answer"]))
        else:
            checked = await seat.check(request_id, body["answer"])
    except NoOpenDecision:
        return _error(409, "This question is no longer open; the page will refresh.")
    if checked.refusal:
        return _error(422, checked.refusal)
    # a dry run says which words the others would read changed (issue 38 item 4)
    reply: dict[str, Any] = {"ok": True}
    if checked.shown:
        reply["shown"] = dict(checked.shown)
    return JSONResponse(reply)


async def _leave(request: Request) -> Response:
    audience: Audience = request.scope["audience"]
    if audience.seat is None:
        return _error(403, "only a seat's page can leave")
    audience.seat.leave()
    return JSONResponse({"ok": True})


async def _host_start(request: Request) -> Response:
    def start(host: HostActions, body: dict[str, Any]) -> str:
        host.start()
        return ""

    return await _host_action(request, start)


async def _host_take(request: Request) -> Response:
    return await _host_action(request, lambda host, body: host.take(_seat_of(body)))


async def _host_return(request: Request) -> Response:
    def hand_back(host: HostActions, body: dict[str, Any]) -> str:
        host.hand_back(_seat_of(body), str(body.get("to", "configured")))
        return ""

    return await _host_action(request, hand_back)


async def _host_watch(request: Request) -> Response:
    return await _host_action(request, lambda host, body: host.watch(str(body["target"])))


async def _host_action(
    request: Request, action: Callable[[HostActions, dict[str, Any]], str]
) -> Response:
    audience: Audience = request.scope["audience"]
    body = await _body_for(request, audience.host is not None, "only the host panel can do this")
    if isinstance(body, Response):
        return body
    if not isinstance(body, dict) or audience.host is None:
        return _error(400, "send a JSON object")
    try:
        url = action(audience.host, body)
    except (KeyError, ValueError) as err:
        return _error(400, str(err.args[0]) if err.args else "bad request")
    return JSONResponse({"ok": True, "url": url})


async def _push(websocket: WebSocket) -> None:
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
            done, _ = await asyncio.wait({incoming, changed}, return_when=asyncio.FIRST_COMPLETED)
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


async def _agent(websocket: WebSocket) -> None:
    """A remote program's socket (only a remote seat's token opens it)."""
    audience: Audience = websocket.scope["audience"]
    if audience.socket is None:
        await refuse_socket(
            websocket.scope, websocket.send, "only a remote seat's token opens /agent"
        )
        return
    await audience.socket(websocket)


async def _body_for(request: Request, may: bool, refusal: str) -> object | Response:
    """The JSON body of an action the audience ``may`` take; 403 (``refusal``) if
    it may not, before the body is read."""
    if not may:
        return _error(403, refusal)
    return await _json_body(request)


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
