"""Shared helpers for the local-model tests.

Tests that need a real llama.cpp server are skipped (with the command that
installs it) only when llama-server or the weights are missing; CI installs
both via `make test`, so there they always run.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import pytest

from sandbox.models.local import LocalModelError, missing_server_parts, resolve_model


def local_extra_missing() -> str | None:
    """Why the local model is unusable here, or None when it is installed."""
    missing = missing_server_parts()
    if missing:
        names = ", ".join(missing)
        return f"llama-server is not installed (missing {names}); run `make setup`"
    try:
        resolve_model("local/smollm2")
    except LocalModelError as err:
        return str(err)
    return None


requires_local = pytest.mark.skipif(
    local_extra_missing() is not None, reason=local_extra_missing() or ""
)


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        time.sleep(0.1)
    return process_gone(pid)


def server_children(pid: int) -> list[int]:
    """The processes the watcher ``pid`` started (the llama-server)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def port_holders(port: int) -> set[int]:
    """The processes holding a socket that listens on ``port`` (Linux's /proc:
    the listening sockets' inodes, then the processes with one of them open)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    inodes.add(inode)
    holders: set[int] = set()
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            for fd in fd_dir.iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:[") and target[8:-1] in inodes:
                        holders.add(int(fd_dir.parent.name))
    return holders


@pytest.fixture
def packaged_gguf() -> Path:
    return resolve_model("local/smollm2").path
