"""The fake server's HTTP side: one request in, its wire picked by the path,
its fault or answer out in that wire's shape, and what went out recorded.

Paths (any prefix before them, so ``api_base`` may or may not end in /v1):
``…/chat/completions`` OpenAI chat, ``…/responses`` OpenAI Responses,
``…/messages`` Anthropic, ``…/models/<model>:generateContent`` Gemini.
"""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

import sandbox.models.fake.answers as answers
import sandbox.models.fake.anthropic as anthropic
import sandbox.models.fake.gemini as gemini
import sandbox.models.fake.openai_chat as openai_chat
import sandbox.models.fake.responses as responses
from sandbox.models.fake.wire import BadRequest, Reply, Sent, Turn, Wire, retry_after_header


class Backend(Protocol):
    """What the HTTP side asks of the fake (``server.FakeLLMServer`` is it): the
    server owns the handler, so the handler names these instead of importing it."""

    hang_s: float
    context_window: int | None
    retry_after_s: float
    nodelay: list[bool]

    def track(self, connection: socket.socket, opened: bool) -> None: ...
    def enter(self, record: dict[str, Any], wire: str) -> tuple[str | None, float]: ...
    def leave(self) -> None: ...
    def wait(self, seconds: float) -> None: ...
    def overflows(self, turn: Turn) -> int | None: ...
    def answer_text(self, body: Mapping[str, Any]) -> tuple[int, str]: ...
    def reply(self, turn: Turn, text: str, wire: str) -> Reply: ...
    def record(self, sent: Sent) -> None: ...


WIRES: tuple[Wire, ...] = (openai_chat, responses, anthropic, gemini)


def wire_for(path: str) -> Wire | None:
    return next((w for w in WIRES if w.matches(path)), None)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: Backend

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # a client that hung up mid-answer is normal here (timeouts)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes; with Nagle's algorithm on,
    # the body waits for the client's delayed ACK of the headers (~40 ms on
    # Linux), which was most of the per-call overhead the LLM bench measured.
    disable_nagle_algorithm = True
    server: Server

    def setup(self) -> None:
        super().setup()
        flag = self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        self.server.fake.nodelay.append(bool(flag))
        self.server.fake.track(self.connection, opened=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake.track(self.connection, opened=False)

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            models = [{"id": f"fake-{p}", "object": "model"} for p in answers.POLICIES]
            self._send(200, {"object": "list", "data": models})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        wire = wire_for(self.path)
        if wire is None:
            self._send(404, {"error": {"message": f"no such endpoint: {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = None
        if not isinstance(body, dict):
            self._send(400, wire.error(400, "invalid", "request body is not a JSON object", 0))
            return
        fake = self.server.fake
        fault, latency = fake.enter({**body, "_path": self.path}, wire.NAME)
        try:
            if latency:
                fake.wait(latency)
            self._answer(wire, body, fault)
        except OSError:
            pass  # the client gave up (e.g. its timeout); nothing to answer
        finally:
            fake.leave()

    def _answer(self, wire: Wire, body: Mapping[str, Any], fault: str | None) -> None:
        fake = self.server.fake
        try:
            turn: Turn | None = wire.parse(body, self.path)
            refusal = None
        except BadRequest as err:
            turn, refusal = None, str(err)
        model = str(turn.chat.get("model", "")) if turn else str(body.get("model", ""))
        sent = Sent(wire=wire.NAME, model=model, status=0, fault=fault)
        if fault == "hang":
            fake.wait(fake.hang_s)
            return self._error(wire, sent, 504, "timeout", "hung")
        if fault == "429":
            wait = fake.retry_after_s
            message = f"rate limit reached (fake); retry after {wait:g} s"
            return self._error(wire, sent, 429, "rate_limit", message)
        if fault == "500":
            return self._error(wire, sent, 500, "server", "internal error (fake)")
        if fault == "overloaded":
            status = wire.OVERLOADED_STATUS
            return self._error(wire, sent, status, "overloaded", "Overloaded (fake)")
        if fault == "malformed":
            return self._deliver(_with(sent, status=200), 200, wire.malformed())
        if fault == "auth_echo":
            # A careless provider that echoes the credential it was given.
            headers = {name.lower(): value for name, value in self.headers.items()}
            echoed = wire.credential(headers, self.path)
            return self._error(wire, sent, 401, "auth", f"invalid key: {echoed}")
        if turn is None:
            return self._error(wire, sent, 400, "invalid", str(refusal))
        if (tokens := fake.overflows(turn)) is not None:
            message = wire.TOO_LONG.format(tokens=tokens, window=fake.context_window)
            return self._error(wire, sent, 400, "context", message)
        status, text = fake.answer_text(turn.chat)
        if status != 200:
            return self._error(wire, sent, status, "down", "fake provider is down")
        reply = fake.reply(turn, text, wire.NAME)
        answered = _with(
            sent, status=200, mode=turn.mode, text=text, thinking=reply.thinking, usage=reply.usage
        )
        self._deliver(answered, 200, json.dumps(wire.success(body, turn, reply)).encode())

    def _error(self, wire: Wire, sent: Sent, status: int, kind: str, message: str) -> None:
        fake = self.server.fake
        headers: dict[str, str] = {}
        retry_after = None
        if status == 429:
            retry_after = fake.retry_after_s
            headers["Retry-After"] = retry_after_header(retry_after)
        data = json.dumps(wire.error(status, kind, message, fake.retry_after_s)).encode()
        failed = _with(sent, status=status, retry_after_s=retry_after, text=message)
        self._deliver(failed, status, data, headers)

    def _deliver(
        self, sent: Sent, status: int, data: bytes, headers: Mapping[str, str] | None = None
    ) -> None:
        """Record what goes out, then send it: a client that reads the answer
        finds it in ``FakeLLMServer.sent`` already."""
        self.server.fake.record(sent)
        self._send_raw(status, data, headers)

    def _send(
        self, status: int, obj: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        self._send_raw(status, json.dumps(obj).encode(), headers)

    def _send_raw(self, status: int, data: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _with(sent: Sent, **changes: Any) -> Sent:
    return dataclasses.replace(sent, **changes)
