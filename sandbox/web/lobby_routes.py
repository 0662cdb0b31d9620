"""What a page may ask of the lobby (issue 38 item 2), on the lobby's one
server beside every table's own routes (web/routes.py).

Each route is reached through the same guard as a game's pages (web/guard.py):
a known token and the server's own ``Host`` first, else ``403`` in one line.
The token says who asks: the lobby's link (list tables, create one, pick a free
seat), a table's host page (start, rematch, close) or a person's seat page
(rejoin). Every request of a token and client spends from a budget; a client
that floods is refused with ``429`` in one line. Bodies are small forms or
JSON objects, bounded before they are parsed.

A browser gets HTML (plain forms, no script: the lobby's pages may post a form
to their own server, which the game's pages may not); a program that sends or
accepts JSON gets one JSON object, refusals as ``{"ok": false, "error": ...}``.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.web.audience import Audience
from sandbox.web.guard import CSP, Guard
from sandbox.web.hub import WebHub
from sandbox.web.limits import BadBody, parse_body
from sandbox.web.lobby_pages import lobby_page, refused_page, seat_page, table_page
from sandbox.web.lobby_table import LobbySide, Table, TableError, settings_of
from sandbox.web.routes import FrameBudget, app

# A lobby form is a few fields; anything larger is not one.
LOBBY_BODY_BYTES = 8 * 1024
MAX_FIELDS = 40
# Requests one client may make with one token: a burst, refilled per second.
REQUEST_BURST = 40.0
REQUESTS_PER_S = 10.0
MAX_CLIENTS = 4096  # budgets kept; the oldest is forgotten first
FLOODING = "too many requests from this client; wait a moment and try again"
# The lobby's pages post plain forms to their own server (the game's pages may not).
LOBBY_CSP = CSP.replace("form-action 'none'", "form-action 'self'").encode()

Handler = Callable[[Request], Awaitable[Response]]


class Budgets:
    """A request budget per (token, client address): one client that floods is
    refused without refusing the others who share the lobby's link."""

    def __init__(self) -> None:
        self._budgets: OrderedDict[tuple[str, str], FrameBudget] = OrderedDict()
        self._lock = threading.Lock()

    def spend(self, token: str, client: str) -> bool:
        key = (token, client)
        with self._lock:
            budget = self._budgets.pop(key, None) or FrameBudget(REQUEST_BURST, REQUESTS_PER_S)
            self._budgets[key] = budget  # the most recent last
            while len(self._budgets) > MAX_CLIENTS:
                self._budgets.popitem(last=False)
            return budget.spend()


class LobbyHeaders:
    """The lobby's pages get the game pages' security headers with one change:
    a form may post to this server (``form-action 'self'``)."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith("/lobby"):
            await self.inner(scope, receive, send)
            return

        async def send_lobby(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, LOBBY_CSP if k == b"content-security-policy" else v)
                    for k, v in message.get("headers", [])
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.inner(scope, receive, send_lobby)


def lobby_app(hub: WebHub, lobby: LobbySide) -> ASGIApp:
    """The lobby's server: its routes, then every table's, behind the guard."""
    budgets = Budgets()

    def route(path: str, handler: Callable[[Request, LobbySide], Awaitable[Response]],
              methods: tuple[str, ...] = ("GET",)) -> Route:  # fmt: skip
        async def guarded(request: Request) -> Response:
            audience: Audience = request.scope["audience"]
            client = request.client.host if request.client else ""
            if not budgets.spend(audience.token, client):
                return _refuse(429, FLOODING)
            try:
                return await handler(request, lobby)
            except TableError as err:
                return _refuse(err.status, str(err), request)

        return Route(path, guarded, methods=list(methods))

    routes = [
        route("/lobby", _lobby),
        route("/lobby/tables", _tables),
        route("/lobby/create", _create, ("POST",)),
        route("/lobby/pick", _pick, ("POST",)),
        route("/lobby/table", _table),
        route("/lobby/start", _host_action, ("POST",)),
        route("/lobby/rematch", _host_action, ("POST",)),
        route("/lobby/close", _host_action, ("POST",)),
        route("/lobby/seat", _seat),
        route("/lobby/rejoin", _rejoin, ("POST",)),
    ]
    return LobbyHeaders(Guard(app(routes), hub))


# ---------------------------------------------------------------- the lobby's link


async def _lobby(request: Request, lobby: LobbySide) -> Response:
    page = _only(request, lobby.page, "only the lobby's link lists the tables")
    if _wants_json(request):
        return JSONResponse({"ok": True, "tables": lobby.listing(), "games": sorted(lobby.games)})
    return HTMLResponse(lobby_page(lobby, page.token))


async def _tables(request: Request, lobby: LobbySide) -> Response:
    _only(request, lobby.page, "only the lobby's link lists the tables")
    return JSONResponse({"ok": True, "tables": lobby.listing(), "games": sorted(lobby.games)})


async def _create(request: Request, lobby: LobbySide) -> Response:
    _only(request, lobby.page, "only the lobby's link creates tables")
    form = await _form(request)
    table = lobby.create(settings_of(form))
    host = table.host_page.token
    if _wants_json(request):
        seats = {str(s): lobby.link("/", p.token) for s, p in sorted(table.seat_pages.items())}
        return JSONResponse({"ok": True, "table": table.number, "host": host,
                             "table_url": lobby.link("/lobby/table", host),
                             "panel_url": lobby.link("/", host), "seats": seats})  # fmt: skip
    return RedirectResponse(f"/lobby/table?t={host}", 303)


async def _pick(request: Request, lobby: LobbySide) -> Response:
    _only(request, lobby.page, "only the lobby's link picks a seat")
    form = await _form(request)
    number, seat = _whole(form, "table"), _whole(form, "seat")
    page = lobby.table(number).take(seat)
    if _wants_json(request):
        return JSONResponse({"ok": True, "table": number, "seat": seat, "token": page.token,
                             "url": lobby.link("/", page.token),
                             "rejoin_url": lobby.link("/lobby/seat", page.token)})  # fmt: skip
    return RedirectResponse(f"/lobby/seat?t={page.token}", 303)


# ---------------------------------------------------------------- a table's host


def _hosted(request: Request, lobby: LobbySide) -> Table:
    table = lobby.host_of(request.scope["audience"])
    if table is None:
        raise TableError("only a table's host page can do this", 403)
    return table


async def _table(request: Request, lobby: LobbySide) -> Response:
    table = _hosted(request, lobby)
    if _wants_json(request):
        return JSONResponse({"ok": True, **_table_json(table, lobby)})
    return HTMLResponse(table_page(table, lobby))


async def _host_action(request: Request, lobby: LobbySide) -> Response:
    table = _hosted(request, lobby)
    await _form(request)  # bounded like every body, though nothing in it is read
    action = request.url.path.rsplit("/", 1)[-1]
    if action == "start":
        table.start()
    elif action == "rematch":
        table.rematch()
    else:
        lobby.close(table)
        if _wants_json(request):
            return JSONResponse({"ok": True})
        return RedirectResponse(f"/lobby?t={lobby.page.token}", 303)
    if _wants_json(request):
        return JSONResponse({"ok": True, **_table_json(table, lobby)})
    return RedirectResponse(f"/lobby/table?t={table.host_page.token}", 303)


def _table_json(table: Table, lobby: LobbySide) -> dict[str, Any]:
    rows = [{**row, "url": lobby.link("/", row.pop("token"))} for row in table.seat_rows()]
    return {"table": table.number, "status": table.status(), "seeds": table.seeds,
            "error": table.error, "seats": rows}  # fmt: skip


# ---------------------------------------------------------------- a person's seat


def _seated(request: Request, lobby: LobbySide) -> tuple[Table, int]:
    found = lobby.seat_of(request.scope["audience"])
    if found is None:
        raise TableError("only a seat's page of a lobby table can do this", 403)
    return found


async def _seat(request: Request, lobby: LobbySide) -> Response:
    table, seat = _seated(request, lobby)
    if _wants_json(request):
        return JSONResponse({"ok": True, "table": table.number, "seat": seat,
                             "status": table.status()})  # fmt: skip
    return HTMLResponse(seat_page(table, seat, lobby))


async def _rejoin(request: Request, lobby: LobbySide) -> Response:
    table, seat = _seated(request, lobby)
    await _form(request)
    table.rejoin(seat)
    token = request.scope["audience"].token
    if _wants_json(request):
        return JSONResponse({"ok": True, "url": lobby.link("/", token)})
    return RedirectResponse(f"/?t={token}", 303)


# ---------------------------------------------------------------- helpers


def _only(request: Request, page: Audience, refusal: str) -> Audience:
    audience: Audience = request.scope["audience"]
    if audience is not page:
        raise TableError(refusal, 403)
    return audience


def _wants_json(request: Request) -> bool:
    kind = request.headers.get("content-type", "")
    accept = request.headers.get("accept", "")
    return kind.startswith("application/json") or (
        "application/json" in accept and "text/html" not in accept
    )


async def _form(request: Request) -> dict[str, str]:
    """The request's fields (a urlencoded form or a JSON object), read at most
    LOBBY_BODY_BYTES; TableError (400/413, one line) if it is not one."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > LOBBY_BODY_BYTES:
            raise TableError(f"the body is larger than {LOBBY_BODY_BYTES} bytes", 413)
        chunks.append(chunk)
    raw = b"".join(chunks)
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            body = parse_body(raw) if raw else {}
        except BadBody as err:
            raise TableError(str(err), 400) from None
        if not isinstance(body, dict):
            raise TableError("send a JSON object", 400)
        return {str(k): _text(v) for k, v in body.items()}
    try:
        fields = parse_qs(raw.decode("utf-8"), max_num_fields=MAX_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise TableError("the body is not a form", 400) from None
    return {key: values[-1] for key, values in fields.items()}


def _text(value: object) -> str:
    """A JSON field as a form would send it."""
    if isinstance(value, bool):
        return "true" if value else ""
    if isinstance(value, list):
        return ", ".join(json.dumps(v) for v in value)
    return value if isinstance(value, str) else json.dumps(value)


def _whole(form: Mapping[str, str], key: str) -> int:
    text = form.get(key, "").strip()
    if not text.isdigit() or len(text) > 6:
        raise TableError(f"{key}: a whole number, please", 400)
    return int(text)


def _refuse(status: int, message: str, request: Request | None = None) -> Response:
    """A refusal in one line: JSON for a program (and for a flood), a short page
    with the same line for a browser."""
    if request is None or _wants_json(request) or status == 429:
        return JSONResponse({"ok": False, "error": message}, status)
    audience: Audience | None = request.scope.get("audience")
    token = audience.token if audience is not None else ""
    back = {"lobby": "/lobby", "host": "/lobby/table", "seat": "/lobby/seat"}.get(
        audience.kind if audience is not None else "", ""
    )
    return HTMLResponse(refused_page(message, f"{back}?t={token}" if back else "", token), status)
