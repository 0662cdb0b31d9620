"""A loopback proxy in front of the fake provider that behaves like a
reasoning model's or a picky provider's OpenAI chat endpoint: it adds
reasoning text (a unique marker per answer) and reasoning tokens to each
answer, refuses ``response_format`` or named parameters with the providers'
HTTP 400, and answers queued 429s (with ``Retry-After``, or a spent quota).

It records what it sent, so tests compare the transcript with it. The
answers themselves come from the real fake server (its policies, its
prefix cache); only the wire around them changes.
"""

from __future__ import annotations

import http.client
import json
import threading
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlparse

from sandbox.models.fake import FakeLLMServer

MARK = "THOUGHT"  # every reasoning text starts with it, then a unique id


@dataclass
class Sent:
    """One answer the proxy sent: its reasoning text and usage."""

    reasoning: str
    reasoning_tokens: int
    tokens_in: int
    tokens_out: int
    cached_tokens: int


@dataclass
class Behaviour:
    reasoning: bool = True
    reject_format: bool = False  # a 400 for any response_format
    reject_params: tuple[str, ...] = ()  # a 400 for any of these parameters
    faults: deque[tuple[int, dict[str, str], dict[str, Any]]] = field(default_factory=deque)


class WireProxy:
    def __init__(self, fake: FakeLLMServer, behaviour: Behaviour | None = None) -> None:
        self.fake = fake
        self.behaviour = behaviour or Behaviour()
        self.sent: list[Sent] = []
        self.bodies: list[dict[str, Any]] = []
        self.refused = 0
        self.run = uuid.uuid4().hex[:8]
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.proxy = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def rate_limit(self, retry_after: str, times: int = 1) -> None:
        error = {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit"}
        for _ in range(times):
            self.behaviour.faults.append((429, {"Retry-After": retry_after}, {"error": error}))

    def quota(self, times: int = 1) -> None:
        error = {
            "message": "You exceeded your current quota, please check your plan and billing.",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
        for _ in range(times):
            self.behaviour.faults.append((429, {}, {"error": error}))

    def __enter__(self) -> WireProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # ------------------------------------------------------------ answering
    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        with self._lock:
            self.bodies.append(body)
            fault = self.behaviour.faults.popleft() if self.behaviour.faults else None
        if fault is not None:
            return fault
        refused = self._refusal(body)
        if refused is not None:
            with self._lock:
                self.refused += 1
            return 400, {}, {"error": refused}
        status, answer = self._forward(path, body)
        if status != 200 or not self.behaviour.reasoning:
            return status, {}, answer
        return 200, {}, self._with_reasoning(answer)

    def _refusal(self, body: dict[str, Any]) -> dict[str, Any] | None:
        if self.behaviour.reject_format and "response_format" in body:
            return {
                "message": "Invalid parameter: 'response_format' of type "
                f"'{body['response_format'].get('type')}' is not supported with this model.",
                "type": "invalid_request_error",
                "param": "response_format",
                "code": "unsupported_parameter",
            }
        for name in self.behaviour.reject_params:
            if name in body:
                return {
                    "message": f"Unsupported parameter: '{name}' is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": name,
                    "code": "unsupported_parameter",
                }
        return None

    def _forward(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        target = urlparse(self.fake.base_url)
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        try:
            data = json.dumps(body).encode()
            connection.request("POST", path, data, {"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"{}")
        finally:
            connection.close()

    def _with_reasoning(self, answer: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            number = len(self.sent)
            thought = f"{MARK}-{self.run}-{number:05d}: weighing the seats before answering."
            usage = answer["usage"]
            spent = 11 + number % 7
            usage["completion_tokens"] += spent  # reasoning is part of the completion
            usage["total_tokens"] += spent
            usage["completion_tokens_details"] = {"reasoning_tokens": spent}
            answer["choices"][0]["message"]["reasoning_content"] = thought
            cached = int(usage.get("prompt_tokens_details", {}).get("cached_tokens", 0))
            self.sent.append(
                Sent(thought, spent, usage["prompt_tokens"], usage["completion_tokens"], cached)
            )
        return answer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        status, headers, answer = self.server.proxy.answer(self.path, body)
        data = json.dumps(answer).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
