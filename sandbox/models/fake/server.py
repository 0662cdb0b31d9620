"""The fake server: stdlib HTTP in a daemon thread, bound to loopback only.

Tests drive it directly (``scripted`` answers, queued ``faults``) and read what
it saw (``requests``, ``max_in_flight``). Faults are consumed one per request,
before the answer policy runs.

Like a real provider it keeps a prefix cache: every prompt it answered is
remembered (the last ``CACHE_PROMPTS``), and a new prompt's longest common
prefix with any of them is reported as ``usage.prompt_tokens_details.
cached_tokens`` (4 characters a token, as for ``prompt_tokens``). With a
``context_window`` it refuses longer prompts as providers do (HTTP 400,
``context_length_exceeded``). Stopping it closes the connections still open,
so no handler thread outlives it.
"""

from __future__ import annotations

import bisect
import contextlib
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

import sandbox.models.fake.answers as answers

LOOPBACK = ("127.0.0.1", "localhost", "::1")
FAULTS = ("429", "500", "hang", "malformed", "auth_echo")
POLL_S = 0.05  # how soon serve_forever notices a stop
CACHE_PROMPTS = 4096  # prompts remembered by the simulated prefix cache
KEEP_REQUESTS = 10_000  # request bodies kept for tests (a long-running server stays small)


class PrefixCache:
    """The longest prefix a prompt shares with any remembered one. The
    prompts are kept sorted: the best match is always a sorted neighbour."""

    def __init__(self, size: int = CACHE_PROMPTS) -> None:
        self.size = size
        self._sorted: list[str] = []
        self._order: deque[str] = deque()

    def lookup_and_add(self, prompt: str) -> int:
        """Characters of ``prompt`` found cached; then ``prompt`` is cached."""
        at = bisect.bisect_left(self._sorted, prompt)
        neighbours = self._sorted[max(0, at - 1) : at + 1]
        found = max((common_prefix(prompt, other) for other in neighbours), default=0)
        if at < len(self._sorted) and self._sorted[at] == prompt:
            return found
        self._sorted.insert(at, prompt)
        self._order.append(prompt)
        if len(self._order) > self.size:
            oldest = self._order.popleft()
            del self._sorted[bisect.bisect_left(self._sorted, oldest)]
        return found


def common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share (binary search on
    slice equality, which runs in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


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
        context_window: int | None = None,
    ) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"the fake server listens on loopback only, not {host!r}")
        if policy not in answers.POLICIES:
            raise ValueError(f"unknown policy {policy!r}; allowed: {', '.join(answers.POLICIES)}")
        self.policy = policy
        self.latency_s = latency_s
        self.latency_jitter_s = latency_jitter_s
        self.hang_s = hang_s
        self.context_window = context_window
        self.scripted: deque[str] = deque()
        self.faults: deque[str] = deque()
        self.requests: deque[dict[str, Any]] = deque(maxlen=KEEP_REQUESTS)
        self.chat_requests = 0
        self.cache = PrefixCache()
        self.cached_tokens = 0  # reported so far, over all answers
        self._connections: set[socket.socket] = set()
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
        with self._lock:
            open_now, self._connections = list(self._connections), set()
        for connection in open_now:  # wakes the handler threads blocked reading
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)

    def track(self, connection: socket.socket, opened: bool) -> None:
        with self._lock:
            if opened:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

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

    # -------------------------------------------------------------- answering
    def enter(self, record: dict[str, Any]) -> tuple[str | None, float]:
        """Count a request in; return its fault (if any) and its latency."""
        with self._lock:
            self.requests.append(record)
            if str(record.get("_path", "")).endswith("/chat/completions"):
                self.chat_requests += 1
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
        # A request's own ``seed`` (a what-if branch's) is part of it: another seed, another draw.
        seeded = "" if body.get("seed") is None else f":{body['seed']}"
        rng = random.Random(f"{self.seed}:{prompt_digest(body)}{seeded}")
        schema = answers.schema_from_request(body)
        if policy == "garbage":
            return 200, answers.garbage_answer(rng)
        if policy == "illegal":
            return 200, answers.illegal_answer(schema, rng)
        if policy == "reactive":
            return 200, answers.reactive_answer(schema, body.get("messages") or [], rng)
        text = answers.legal_answer(schema, rng)
        if policy == "legal-fenced":
            text = f"Here is my answer:\n```json\n{text}\n```"
        return 200, text

    def usage(self, body: Mapping[str, Any], text: str) -> dict[str, Any]:
        """Approximate usage, with the simulated cache's hit as cached_tokens."""
        prompt = prompt_text(body)
        with self._lock:
            cached_chars = self.cache.lookup_and_add(prompt)
            cached = cached_chars // answers.CHARS_PER_TOKEN
            self.cached_tokens += cached
        tokens_in, tokens_out = answers.approx_tokens(prompt), answers.approx_tokens(text)
        return {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
            "prompt_tokens_details": {"cached_tokens": min(cached, tokens_in)},
        }

    def overflows(self, body: Mapping[str, Any]) -> int | None:
        """The prompt's tokens if it does not fit the window, else None."""
        if self.context_window is None:
            return None
        tokens = answers.approx_tokens(prompt_text(body))
        return tokens if tokens > self.context_window else None

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
        elif (tokens := fake.overflows(body)) is not None:
            message = (
                f"This model's maximum context length is {fake.context_window} tokens; "
                f"your messages resulted in {tokens} tokens."
            )
            error = {
                "message": message,
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            }
            self._send(400, {"error": error})
        else:
            status, text = fake.answer_text(body)
            if status != 200:
                self._send(status, {"error": {"message": "fake provider is down"}})
            else:
                self._send(200, completion(body, text, fake.usage(body, text)))

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


def prompt_text(body: Mapping[str, Any]) -> str:
    """The prompt as one string: every message's text in order."""
    return "".join(str(m.get("content") or "") for m in body.get("messages") or [])


def completion(body: Mapping[str, Any], text: str, usage: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat.completion object around ``text``."""
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
        "usage": dict(usage),
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
