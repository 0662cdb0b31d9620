"""A real ``sandbox batch`` process stopped from outside: SIGTERM behaves like
Ctrl-C (no worker survives, games resumable), and a worker killed outright
fails only its own games, which a re-run finishes identically; every worker
starts with SIGINT blocked, the first one too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.models.fake.server import FakeLLMServer
from tests.batch.helpers import by_seed, comparable, fake_file

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


class GatedFake(FakeLLMServer):
    """A fake server that answers its first ``passed`` requests and holds every
    later one until :meth:`open` (or its stop). No game of these tests can end
    in so few calls, so while it holds, a batch is provably mid-game: a signal
    sent then cannot come after the batch finished, however busy the machine."""

    def __init__(self, passed: int) -> None:
        super().__init__()
        self.passed = passed
        self.gate = threading.Event()
        self.held = 0

    def enter(self, record: dict[str, Any], wire: str) -> tuple[str | None, float]:
        taken = super().enter(record, wire)
        with self._lock:
            self.passed -= 1
            hold = self.passed < 0
            self.held += hold
        while hold and not (self.gate.is_set() or self._stopping.is_set()):
            self.gate.wait(0.05)  # re-checks the stop: wait(None) could outlive the server
        return taken

    def open(self) -> None:
        self.gate.set()

    def stop(self) -> None:
        self.open()
        super().stop()


@pytest.fixture()
def gated_fake() -> Iterator[GatedFake]:
    """Holds every request after the first 8 (Killer at 11 seats makes dozens a game)."""
    with GatedFake(passed=8) as server:
        yield server


# A bound on each wait for a child or a condition, not its duration: with both
# cores kept busy (2026-12-06, load 11-13) the longest of these tests took 108 s
# in all, its two re-runs included, and each wait here a small part of that.
WAIT_S = 120

# The command line as a user runs it (the console script's entry point).
SANDBOX = [sys.executable, "-c", "from sandbox.cli.main import main; main()"]


def start_batch(config: Path, *args: str) -> subprocess.Popen[str]:
    command = [*SANDBOX, "batch", str(config), "--json", "--quiet", *args]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def workers_of(pid: int) -> list[int]:
    """The batch's worker processes (not multiprocessing's resource tracker)."""

    def is_worker(child: int) -> bool:
        try:
            return b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            return False

    return [child for child in children(pid) if is_worker(child) and alive(child)]


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped is not running)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(predicate: Any, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def started_games(out: Path) -> int:
    return len(list(out.glob("*.jsonl")))


def test_sigterm_stops_the_batch_like_ctrl_c_and_leaves_no_worker(
    tmp_path: Path, gated_fake: GatedFake
) -> None:
    config = fake_file(tmp_path, gated_fake.base_url)
    out = tmp_path / "out"
    proc = start_batch(config, "--games", "6", "--jobs", "2", "--games-in-flight", "1")
    # Both workers are playing, and the fake holds calls: no game can end now.
    wait_for(lambda: started_games(out) >= 2 and gated_fake.held > 0)
    workers = workers_of(proc.pid)
    assert len(workers) == 2
    helpers = [p for p in children(proc.pid) if alive(p)]
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 130, stderr
    assert "interrupted:" in stderr and "Traceback" not in stderr
    wait_for(lambda: not any(alive(p) for p in helpers))
    obj = json.loads(stdout)
    assert obj["interrupted"] is True
    assert started_games(out) < 6  # no new game started after the signal
    gated_fake.open()  # the re-run plays every game to its end
    again = subprocess.run(
        [
            *SANDBOX,
            "batch",
            str(config),
            "--games",
            "6",
            "--json",
            "--quiet",
            "--games-in-flight",
            "6",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["finished"] == 6


def test_a_killed_worker_fails_its_games_and_a_rerun_finishes_them_identically(
    tmp_path: Path, gated_fake: GatedFake
) -> None:
    config = fake_file(tmp_path / "a", gated_fake.base_url)
    out = tmp_path / "a" / "out"
    proc = start_batch(config, "--games", "4", "--jobs", "2", "--games-in-flight", "2")
    # All four games started (two per worker) and the fake holds calls: each
    # worker has games mid-way, none can end before the kill.
    wait_for(lambda: started_games(out) >= 4 and gated_fake.held > 0)
    victim = min(workers_of(proc.pid))
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: not alive(victim))
    gated_fake.open()  # the other worker's games go on to their end
    stdout, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 1, stderr  # failed games, not a crash of the batch
    obj = json.loads(stdout)
    lost = [g for g in obj["failed"] if "WorkerLost" in (g["error"] or "")]
    assert 1 <= len(lost) <= 2 and all(isinstance(g["seed"], int) for g in lost)
    assert obj["finished"] == 4 - len(lost)  # the other worker's games were not touched
    again = subprocess.run(
        [
            *SANDBOX,
            "batch",
            str(config),
            "--games",
            "4",
            "--json",
            "--quiet",
            "--games-in-flight",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    rerun = json.loads(again.stdout)
    assert sorted(g["seed"] for g in rerun["games"] if g["resumed"]) == sorted(
        g["seed"] for g in lost
    )
    clean = fake_file(tmp_path / "b", gated_fake.base_url)
    done = subprocess.run(
        [
            *SANDBOX,
            "batch",
            str(clean),
            "--games",
            "4",
            "--json",
            "--quiet",
            "--games-in-flight",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    first, second = by_seed(out), by_seed(tmp_path / "b" / "out")
    assert sorted(first) == sorted(second)
    for seed in first:
        mine, theirs = comparable(first[seed]), comparable(second[seed])
        assert mine[0] == theirs[0], f"seed {seed}: events or outcome differ"


# A worker that reports the signal mask it was started with (/proc's SigBlk) and
# exits: it stands in for worker_main, so nothing of a game runs.
PROBE = """
from pathlib import Path

def report_mask(conn, play):
    status = Path("/proc/self/status").read_text()
    conn.send(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")))
    conn.close()
"""
# Starts two workers as run_pool does, in a fresh interpreter: multiprocessing's
# resource tracker is not running yet, as at the start of a real batch.
SPAWN_TWO = """
import multiprocessing
import probe
import sandbox.batch.workers as workers
workers.worker_main = probe.report_mask
context = multiprocessing.get_context("spawn")
pool = [workers._spawn(context, None) for _ in range(2)]
for worker in pool:
    print(worker.conn.recv())
    worker.process.join()
"""


def test_every_batch_worker_starts_with_sigint_blocked(tmp_path: Path) -> None:
    """The first worker too: starting multiprocessing's resource tracker (at the
    first start()) unblocked SIGINT before the worker was spawned, so a Ctrl-C
    while it loaded killed it ("WorkerLost ... exit code 130")."""
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(root)]))
    done = subprocess.run(
        [sys.executable, "-c", SPAWN_TWO], capture_output=True, text=True, env=env, timeout=WAIT_S
    )
    assert done.returncode == 0, done.stderr
    masks = [int(line, 16) for line in done.stdout.split()]
    assert len(masks) == 2, done.stdout
    sigint = 1 << (signal.SIGINT - 1)
    assert [bool(mask & sigint) for mask in masks] == [True, True], done.stdout
