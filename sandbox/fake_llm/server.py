"""The fake server: stdlib HTTP in a daemon thread, bound to loopback only.

Tests drive it directly (``scripted`` answers, queued ``faults``) and read what
it saw (``requests``, ``max_in_flight``). Faults are consumed one per request,
before the answer policy runs.
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import sandbox.fake_llm.answers as answers

LOOPBACK = ("127.0.0.1", "localhost", "::1")
FAULTS = ("429", "500", "hang", "malformed", "auth_echo")
POLL_S = 0.05  # how soon serve_forever notices a stop


class FakeLLMServer:
    """An OpenAI-compatible chat server with scripted answers and fault injection."""

    def __init__(
        self,
        *,
        policy: str = "legal-random",
        latency_s: float = 0.0,
        latency_jitter_s: float = 0.0,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
        hang_s: float = 30.0,
    ) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"the fake server listens on loopback only, not {host!r}")
        if policy not in answers.POLICIES:
            raise ValueError(f"unknown policy {policy!r}; allowed: {', '.join(answers.POLICIES)}")
        self.policy = policy
        self.latency_s = latency_s
        self.latency_jitter_s = latency_jitter_s
        self.hang_s = hang_s
        self.scripted: deque[str] = deque()
        self.faults: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        # Per accepted connection: was TCP_NODELAY in force (see _Handler)?
        self.nodelay: list[bool] = []
        self.seed = seed
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLLMServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": POLL_S},
                name="fake-llm",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -------------------------------------------------------------- scripting
    def script(self, *raw_answers: str) -> None:
        """Queue raw answer texts for requests whose policy is ``scripted``."""
        self.scripted.extend(raw_answers)

    def inject(self, *faults: str) -> None:
        """Queue faults for the next requests: one of FAULTS each."""
        bad = [f for f in faults if f not in FAULTS]
        if bad:
            raise ValueError(f"unknown faults {bad}; allowed: {FAULTS}")
        self.faults.extend(faults)

    @property
    def chat_requests(self) -> int:
        return sum(1 for r in self.requests if r.get("_path", "").endswith("/chat/completions"))

    # -------------------------------------------------------------- answering
    def enter(self, record: dict[str, Any]) -> tuple[str | None, float]:
        """Count a request in; return its fault (if any) and its latency."""
        with self._lock:
            self.requests.append(record)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            fault = self.faults.popleft() if self.faults else None
            jitter = self._rng.uniform(0, self.latency_jitter_s) if self.latency_jitter_s else 0
        return fault, self.latency_s + jitter

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def answer_text(self, body: Mapping[str, Any]) -> tuple[int, str]:
        """(HTTP status, answer text) for a chat request under its policy."""
        policy = answers.policy_for(str(body.get("model", "")), self.policy)
        with self._lock:
            if policy == "down":
                return 500, ""
            if policy == "scripted":
                if not self.scripted:
                    return 500, ""
                return 200, self.scripted.popleft()
        # Seeded by the prompt, not by arrival order: concurrent seats get the same
        # answers in every run, so a fake game replays exactly from its seed.
        rng = random.Random(f"{self.seed}:{prompt_digest(body)}")
        schema = answers.schema_from_request(body)
        if policy == "garbage":
            return 200, answers.garbage_answer(rng)
        if policy == "illegal":
            return 200, answers.illegal_answer(schema, rng)
        text = answers.legal_answer(schema, rng)
        if policy == "legal-fenced":
            text = f"Here is my answer:\n```json\n{text}\n```"
        return 200, text

    def wait(self, seconds: float) -> None:
        """Sleep, but wake early when the server stops (so hangs end with it)."""
        self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        return None  # a client that hung up mid-answer is normal here (timeouts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes; with Nagle's algorithm on,
    # the body waits for the client's delayed ACK of the headers (~40 ms on
    # Linux), which was most of the per-call overhead the LLM bench measured.
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        flag = self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        self.server.fake.nodelay.append(bool(flag))

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
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "request body is not JSON"}})
            return
        fake = self.server.fake
        fault, latency = fake.enter({**body, "_path": self.path})
        try:
            if latency:
                fake.wait(latency)
            self._answer(body, fault)
        except OSError:
            pass  # the client gave up (e.g. its timeout); nothing to answer
        finally:
            fake.leave()

    def _answer(self, body: Mapping[str, Any], fault: str | None) -> None:
        fake = self.server.fake
        if fault == "hang":
            fake.wait(fake.hang_s)
            self._send(504, {"error": {"message": "hung"}})
        elif fault in ("429", "500"):
            message = "slow down" if fault == "429" else "internal error"
            self._send(int(fault), {"error": {"message": message, "type": "fake_fault"}})
        elif fault == "malformed":
            self._send_raw(200, b'{"id": "x", "choices": [ {"message": ')
        elif fault == "auth_echo":
            # A careless provider that echoes the credential it was given.
            echoed = self.headers.get("Authorization", "")
            self._send(401, {"error": {"message": f"invalid key: {echoed}", "type": "auth"}})
        else:
            status, text = fake.answer_text(body)
            if status != 200:
                self._send(status, {"error": {"message": "fake provider is down"}})
            else:
                self._send(200, completion(body, text))

    def _send(self, status: int, obj: Mapping[str, Any]) -> None:
        self._send_raw(status, json.dumps(obj).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def prompt_digest(body: Mapping[str, Any]) -> str:
    data = json.dumps([body.get("model"), body.get("messages")], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def completion(body: Mapping[str, Any], text: str) -> dict[str, Any]:
    """An OpenAI chat.completion object around ``text``, with approximate usage."""
    prompt = "".join(str(m.get("content") or "") for m in body.get("messages") or [])
    tokens_in, tokens_out = answers.approx_tokens(prompt), answers.approx_tokens(text)
    return {
        "id": f"fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def run_server(host: str, port: int, policy: str, latency_s: float) -> None:
    """Serve until Ctrl-C (``sandbox fake-llm``)."""
    server = FakeLLMServer(policy=policy, latency_s=latency_s, host=host, port=port).start()
    print(f"fake LLM server on {server.base_url} (policy {policy}); Ctrl-C to stop", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
