"""Who may reach the run's web server: every request and WebSocket is checked
for its ``Host`` header (the server's own names only, against DNS rebinding) and
its page's token before any route runs, and every response carries the security
headers. A refusal is one line of JSON, for a WebSocket too (HTTP 403 before it
opens)."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol
from urllib.parse import parse_qs

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK = "127.0.0.1"

# Script and style come from this server only; the page talks to its own origin.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class Audiences(Protocol):
    """What the guard needs of the hub: its allowed names and its tokens."""

    allowed_hosts: frozenset[str]

    def find(self, token: str) -> Any: ...


class Guard:
    """Checks the Host header and the token of every request before any route,
    and adds the security headers to every response."""

    def __init__(self, app: ASGIApp, hub: Audiences) -> None:
        self.app = app
        self.hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        audience = self.hub.find(_token_of(scope)) if host in self.hub.allowed_hosts else None
        if scope["type"] == "websocket":
            if audience is None:
                await refuse_socket(scope, send, "forbidden")
                return
            scope["audience"] = audience
            await self.app(scope, receive, send)
            return
        send_secured = _with_headers(send)
        if audience is None:
            await JSONResponse({"ok": False, "error": "forbidden"}, 403)(
                scope, receive, send_secured
            )
            return
        scope["audience"] = audience
        await self.app(scope, receive, send_secured)


async def refuse_socket(scope: Scope, send: Send, message: str) -> None:
    """Refuse a WebSocket before it opens: HTTP 403 with the same one-line JSON
    error as every other refusal (a server without the ASGI denial response
    extension can only close it, which the client sees as a bare 403)."""
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"ok": False, "error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *SECURITY_HEADERS,
    ]
    await send({"type": "websocket.http.response.start", "status": 403, "headers": headers})
    await send({"type": "websocket.http.response.body", "body": body})


def _with_headers(send: Send) -> Callable[[Message], Awaitable[None]]:
    async def secured(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
        await send(message)

    return secured


def _token_of(scope: Scope) -> str:
    raw: bytes = scope.get("query_string", b"")
    return parse_qs(raw.decode("latin-1")).get("t", [""])[0]


def lan_address(host: str) -> str:
    if host not in ("0.0.0.0", ""):
        return host
    addresses = _local_addresses()
    lan = [a for a in addresses if not a.startswith("127.")]
    return lan[0] if lan else LOOPBACK


def _local_addresses() -> list[str]:
    names = {socket.gethostname(), socket.getfqdn()}
    found: list[str] = []
    for name in names:
        with contextlib.suppress(OSError):
            found += socket.gethostbyname_ex(name)[2]
    return sorted(set(found))


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers a page may send: this server's own names only, so a site
    that rebinds its DNS name to this address is refused (it sends its own)."""
    names: Iterable[str] = {LOOPBACK, "localhost"}
    if host not in (LOOPBACK, "localhost"):
        extra = [*_local_addresses(), socket.gethostname()] if host in ("0.0.0.0", "") else [host]
        names = {*names, *extra}
    return frozenset(f"{name}:{port}" for name in names)
