"""Shared helpers for the local-model tests.

Tests that need a real llama.cpp server are skipped (with the command that
installs it) only when llama-server or the weights are missing; CI installs
both via `make test`, so there they always run.
"""

from __future__ import annotations

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


@pytest.fixture
def packaged_gguf() -> Path:
    return resolve_model("local/smollm2").path
