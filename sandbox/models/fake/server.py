"""The fake server: stdlib HTTP in a daemon thread, bound to loopback only.

It speaks four wire formats, each in its own module, picked by the request's
path (``handler.py`` dispatches): OpenAI chat completions (``openai_chat``),
Anthropic Messages (``anthropic``), Gemini generateContent (``gemini``) and
the OpenAI Responses API (``responses``). Each turns its request into the
chat form the answer policies read (``wire.Turn``), so the same policies
answer on every wire, and turns the reply back into its provider's shape.

Tests drive it directly (``scripted`` answers, queued ``faults``) and read what
it saw (``requests``, ``max_in_flight``) and what it answered (``sent``: one
``wire.Sent`` per request, with its tokens, cached and cache-written tokens,
reasoning tokens and reasoning text). Faults are consumed one per request,
before the answer policy runs, on whichever wire the request came; a 429
carries ``Retry-After`` (``retry_after_s``).

Like a real provider it keeps a prompt cache (``cache.py``): implicit prefix
caching on the OpenAI and Gemini wires, ``cache_control`` breakpoints on the
Anthropic one (4 characters a token, as for the prompt tokens, or
``chars_per_token``: a denser tokenizer, as a small local model's). With a
``context_window`` it refuses longer prompts as providers do (HTTP 400 in
each wire's words). Stopping it closes the connections still open, so no
handler thread outlives it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Mapping
from typing import Any

import sandbox.models.fake.answers as answers
from sandbox.models.fake.cache import BreakpointCache, PrefixCache
from sandbox.models.fake.handler import Handler, Server
from sandbox.models.fake.openai_chat import completion
from sandbox.models.fake.wire import Reply, Sent, Turn, Usage, prompt_text, thought_text
from sandbox.models.prefix import common_prefix

__all__ = [
    "FAULTS",
    "FakeLLMServer",
    "PrefixCache",
    "common_prefix",
    "completion",
    "prompt_digest",
    "prompt_text",
    "run_server",
]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
# "overloaded" is Anthropic's 529 overloaded_error, and a 503 on the other wires.
FAULTS = ("429", "500", "overloaded", "hang", "malformed", "auth_echo")
POLL_S = 0.05  # how soon serve_forever notices a stop
KEEP_REQUESTS = 10_000  # request bodies kept for tests (a long-running server stays small)
ANTHROPIC_MIN_CACHE_TOKENS = 1024  # Claude caches no shorter prefix (Haiku: 2048)


class FakeLLMServer:
    """A multi-wire model server with scripted answers and fault injection."""

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
        chars_per_token: float = answers.CHARS_PER_TOKEN,
        retry_after_s: float = 1.0,
        anthropic_min_cache_tokens: int = ANTHROPIC_MIN_CACHE_TOKENS,
    ) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"the fake server listens on loopback only, not {host!r}")
        if policy not in answers.POLICIES:
            raise ValueError(f"unknown policy {policy!r}; allowed: {', '.join(answers.POLICIES)}")
        if retry_after_s < 0:
            raise ValueError(f"retry_after_s must be >= 0, not {retry_after_s}")
        self.policy = policy
        self.latency_s = latency_s
        self.latency_jitter_s = latency_jitter_s
        self.hang_s = hang_s
        self.context_window = context_window
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be > 0, not {chars_per_token}")
        self.chars_per_token = chars_per_token  # how densely prompts are counted
        self.retry_after_s = retry_after_s
        self.scripted: deque[str] = deque()
        self.faults: deque[str] = deque()
        self.requests: deque[dict[str, Any]] = deque(maxlen=KEEP_REQUESTS)
        self.sent: deque[Sent] = deque(maxlen=KEEP_REQUESTS)
        self.wire_requests: Counter[str] = Counter()
        self.caches: dict[str, PrefixCache] = {}  # implicit caching, one per wire
        self.breakpoint_cache = BreakpointCache(
            min_chars=anthropic_min_cache_tokens * answers.CHARS_PER_TOKEN
        )
        self.cached_tokens = 0  # reported so far, over all answers
        self._connections: set[socket.socket] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        # Per accepted connection: was TCP_NODELAY in force (see handler.Handler)?
        self.nodelay: list[bool] = []
        self.seed = seed
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = Server((host, port), Handler)
        self._httpd.fake = self
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (chat and Responses), e.g. http://127.0.0.1:PORT/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """The bare origin, the ``api_base`` for litellm's ``anthropic/`` and
        ``gemini/`` providers (they add ``/v1/messages`` and ``/models/…``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def chat_requests(self) -> int:
        """Requests on the OpenAI chat wire."""
        return self.wire_requests["openai_chat"]

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

    def __exit__(self, *exc: object) -> None:  # stopped whatever ended the block
        self.stop()

    # -------------------------------------------------------------- scripting
    def script(self, *raw_answers: str) -> None:
        """Queue raw answer texts for requests whose policy is ``scripted``."""
        self.scripted.extend(raw_answers)

    def inject(self, *faults: str) -> None:
        """Queue faults for the next requests (any wire): one of FAULTS each."""
        bad = [f for f in faults if f not in FAULTS]
        if bad:
            raise ValueError(f"unknown faults {bad}; allowed: {FAULTS}")
        self.faults.extend(faults)

    def sent_on(self, wire: str) -> list[Sent]:
        """What was answered on one wire (``openai_chat``, ``anthropic``, …), in order."""
        with self._lock:
            return [s for s in self.sent if s.wire == wire]

    # -------------------------------------------------------------- answering
    def enter(self, record: dict[str, Any], wire: str) -> tuple[str | None, float]:
        """Count a request in; return its fault (if any) and its latency."""
        with self._lock:
            self.requests.append(record)
            self.wire_requests[wire] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            fault = self.faults.popleft() if self.faults else None
            jitter = self._rng.uniform(0, self.latency_jitter_s) if self.latency_jitter_s else 0
        return fault, self.latency_s + jitter

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def record(self, sent: Sent) -> None:
        with self._lock:
            self.sent.append(sent)

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
        if policy == "quiet":
            return 200, answers.quiet_answer(schema, rng)
        if policy == "liar":
            return 200, answers.liar_answer(schema, body.get("messages") or [], rng)
        text = answers.legal_answer(schema, rng)
        if policy == "legal-fenced":
            text = f"Here is my answer:\n```json\n{text}\n```"
        return 200, text

    def reply(self, turn: Turn, text: str, wire: str) -> Reply:
        """The answer with its usage: prompt tokens and the simulated cache's
        hit, reasoning (seeded by the prompt, apart from the answer's draw)."""
        thinking, reasoning_tokens = None, 0
        if turn.thinking:
            rng = random.Random(f"{self.seed}:thought:{prompt_digest(turn.chat)}")
            full = thought_text(rng, turn.budget)
            reasoning_tokens = answers.approx_tokens(full)
            thinking = full if turn.show_thinking else ""
        per_token = self.chars_per_token
        tokens_in = answers.approx_tokens(turn.prompt, per_token)
        with self._lock:
            if turn.breakpoints is None:
                cache = self.caches.setdefault(wire, PrefixCache())
                cached, written = int(cache.lookup_and_add(turn.prompt) / per_token), 0
            else:
                hit = self.breakpoint_cache.lookup_and_write(
                    turn.prompt, turn.boundaries, turn.breakpoints
                )
                cached = int(hit.read / per_token)
                written = int((hit.read + hit.written) / per_token) - cached
            cached = min(cached, tokens_in)
            written = min(written, tokens_in - cached)
            self.cached_tokens += cached
        usage = Usage(
            prompt_tokens=tokens_in,
            cached_tokens=cached,
            cache_creation_tokens=written,
            completion_tokens=answers.approx_tokens(text) + reasoning_tokens,
            reasoning_tokens=reasoning_tokens,
        )
        return Reply(text=text, thinking=thinking, usage=usage)

    def overflows(self, turn: Turn) -> int | None:
        """The prompt's tokens if it does not fit the window, else None."""
        if self.context_window is None:
            return None
        tokens = answers.approx_tokens(turn.prompt, self.chars_per_token)
        return tokens if tokens > self.context_window else None

    def wait(self, seconds: float) -> None:
        """Sleep, but wake early when the server stops (so hangs end with it)."""
        self._stopping.wait(seconds)


def prompt_digest(body: Mapping[str, Any]) -> str:
    data = json.dumps([body.get("model"), body.get("messages")], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def run_server(host: str, port: int, policy: str, latency_s: float) -> None:
    """Serve until Ctrl-C (``sandbox fake-llm``)."""
    server = FakeLLMServer(policy=policy, latency_s=latency_s, host=host, port=port).start()
    print(
        f"fake LLM server on {server.base_url} (policy {policy}; Anthropic and Gemini "
        f"clients use {server.root_url}); Ctrl-C to stop",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
