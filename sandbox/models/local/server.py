"""The embedded model's server: one ``llama-server`` process per GGUF file on
loopback, started on first use and never left running.

The LLM client calls :func:`endpoint_for` and then talks to the server as to
any OpenAI-protocol server (``openai/<alias>`` at ``api_base``). One server per
model file serves every local seat and every game of a run; it is stopped when
the run ends: by :func:`stop_all`, at interpreter exit (atexit), and — when the
parent is killed outright — by a lifeline: a small watcher process holds the
server, its stdin is a pipe only the parent holds, and it stops the server as
soon as that pipe closes, so no server outlives its run.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from sandbox.models.local.settings import (
    SERVER_BINARY_NAME,
    ServerSettings,
    check_server_installed,
    server_binary,
)
from sandbox.models.local.weights import (
    STDERR_TAIL_LINES,
    LocalModel,
    LocalModelError,
    resolve_model,
)

PORT_ATTEMPTS = 3
POLL_INTERVAL_S = 0.2
STOP_GRACE_S = 5.0

# The watcher between us and llama-server (argv[1:] is the server's command).
# llama-server never reads stdin, so it cannot watch a pipe itself: the
# watcher stops it when the parent's end of stdin closes (the parent exited,
# crashed or was killed), and the kernel kills the server should the watcher
# itself be killed (PR_SET_PDEATHSIG).
_LIFELINE_WATCHER = """\
import ctypes, os, shutil, signal, subprocess, sys, threading
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
orphaned = threading.Event()
def _lifeline():
    while sys.stdin.buffer.read(1):
        pass
    orphaned.set()  # before the stop: the main thread sees it once the server exits
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
slots = os.environ.get("SANDBOX_LOCAL_SLOT_DIR")
if slots and orphaned.is_set():  # the slot files, once the server is gone (here,
    shutil.rmtree(slots, ignore_errors=True)  # not in the thread: _exit ends it)
os._exit(code if code >= 0 else 128 - code)
"""


# --------------------------------------------------------------------- ports
def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


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
        self._slot_dir: Path | None = None  # the server's slot files (router.py)

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
            *self.settings.server_args(self._slot_dir, _size(self.model.path)),
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
        # Always a folder for slot files: a seat with the shared record routes
        # its calls (router.py) whatever SANDBOX_LOCAL_ROUTE says.
        if self._slot_dir is None:
            self._slot_dir = Path(
                tempfile.mkdtemp(prefix=f"sandbox-llama-slots-{self.model.alias}-")
            )
        with log:
            self.process = subprocess.Popen(
                self.command(port),
                env=server_environment(self._log_path, self._slot_dir),
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
                # The log may not say it (llama.cpp's logger writes from its own
                # thread, and an exit under load was seen to leave the log empty):
                # a port someone else holds is checked directly.
                if _lost_port(tail) or _port_in_use(self.host, self.port):
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
        if self._slot_dir is not None:
            shutil.rmtree(self._slot_dir, ignore_errors=True)
            self._slot_dir = None


def server_environment(
    log_path: Path | None = None, slot_dir: Path | None = None
) -> dict[str, str]:
    env = dict(os.environ)
    if log_path is not None:
        env["SANDBOX_LOCAL_LOG"] = str(log_path)
    if slot_dir is not None:
        env["SANDBOX_LOCAL_SLOT_DIR"] = str(slot_dir)
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


def _port_in_use(host: str, port: int | None) -> bool:
    """Whether another process holds ``port`` on ``host`` (binding it fails)."""
    if port is None:
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Linux: a port left in TIME_WAIT binds with SO_REUSEADDR, a listened one not.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as err:
            return err.errno == errno.EADDRINUSE
    return False


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
