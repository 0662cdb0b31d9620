"""One web server per run for every page of the game: human seats, the host
panel and spectators. Starlette on uvicorn, in a background thread.

Every page is an *audience* with its own random token (``?t=...``); a request
without a known token, or with a ``Host`` header naming another site, gets 403
before any route runs. An audience only reaches its own board (what its page
shows) and, for a seat or the host, its own actions. The server knows nothing
else of the game, so it cannot leak anything else.

This module starts and stops the server; what a page is lives in
``web/audience.py``, what it may ask in ``web/routes.py``.
"""

from __future__ import annotations

import hmac
import logging
import socket
import sys
import threading
import time
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp

from sandbox.core.seat import AgentSetupError
from sandbox.web.audience import Audience, NoOpenDecision
from sandbox.web.guard import LOOPBACK, Guard, allowed_hosts, lan_address
from sandbox.web.limits import MAX_BODY_BYTES
from sandbox.web.routes import FLOOD_REFUSAL, app

STARTUP_S = 10.0


class HubError(AgentSetupError):
    """The server cannot start (e.g. the port is taken). One line."""


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


class WebHub:
    """The run's web server. Start it once, add audiences, stop it at the end."""

    def __init__(
        self,
        host: str = LOOPBACK,
        port: int = 0,
        serve: Callable[[WebHub], ASGIApp] | None = None,
    ) -> None:
        """``serve``: the guarded application given this hub (the lobby's adds
        its own routes, web/lobby_routes.py); default: the game's pages."""
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
                serve(self) if serve is not None else Guard(app(), self),
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


__all__ = ["FLOOD_REFUSAL", "Audience", "HubError", "NoOpenDecision", "WebHub", "print_to_stderr"]
