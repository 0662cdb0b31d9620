"""The lifeline watcher on its own (no llama.cpp needed): whatever happens to
the parent, the process it holds does not outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from sandbox.models.local.server import _LIFELINE_WATCHER
from tests.models.local.conftest import process_gone, server_children, wait_gone


def start_watcher(command: list[str]) -> tuple[subprocess.Popen[bytes], int]:
    """The watcher holding ``command``, and the pid of that command."""
    watcher = subprocess.Popen(
        [sys.executable, "-c", _LIFELINE_WATCHER, *command],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )
    for _ in range(200):  # wait until the watcher has started its child
        children = server_children(watcher.pid)
        if children:
            return watcher, children[0]
        try:
            watcher.wait(0.05)
        except subprocess.TimeoutExpired:
            continue
        break
    watcher.kill()
    raise AssertionError("the watcher never started its child")


def test_closing_the_lifeline_stops_the_held_process() -> None:
    watcher, held = start_watcher(["sleep", "300"])
    assert not process_gone(held)
    assert watcher.stdin is not None
    watcher.stdin.close()  # what happens when the parent exits, however it exits
    watcher.wait(15)  # raises if it lingers
    assert wait_gone(held, 10)


def test_a_killed_watcher_takes_the_held_process_with_it() -> None:
    watcher, held = start_watcher(["sleep", "300"])
    try:
        watcher.kill()  # SIGKILL: no handler runs; the kernel's death signal acts
        watcher.wait(15)
        assert wait_gone(held, 10)
    finally:
        if watcher.stdin is not None:
            watcher.stdin.close()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_watcher_stops_the_held_process(how: signal.Signals) -> None:
    watcher, held = start_watcher(["sleep", "300"])
    try:
        os.kill(watcher.pid, how)
        watcher.wait(15)
        assert wait_gone(held, 10)
    finally:
        if watcher.stdin is not None:
            watcher.stdin.close()


def test_the_watcher_exits_with_its_process() -> None:
    watcher = subprocess.Popen(
        [sys.executable, "-c", _LIFELINE_WATCHER, sys.executable, "-c", "raise SystemExit(3)"],
        stdin=subprocess.PIPE,
    )
    try:
        assert watcher.wait(15) == 3  # a server that dies is seen as the watcher's exit
    finally:
        assert watcher.stdin is not None
        watcher.stdin.close()
