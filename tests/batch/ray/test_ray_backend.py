"""The Ray backend on a real local cluster (2 CPUs, loopback): results and
transcripts equal the local backend's for the same seeds, a killed worker's game
is resumed and counted once, a game whose worker keeps dying is reported with
its seed, and the limiter caps calls to one provider across workers."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.batch.backends import BackendOptions
from sandbox.batch.backends.limits import parse_limits
from sandbox.batch.backends.ray import RayBackend
from sandbox.batch.backends.ray_staging import STAGING, game_ident
from sandbox.batch.run import BatchResult, jobs_for
from sandbox.models.fake import FakeLLMServer
from sandbox.session import resume
from tests.batch.ray.conftest import by_seed, comparable, events_of, loaded_of, play_local, play_ray

pytestmark = pytest.mark.usefixtures("cluster")
# A bound on a Ray worker's start, not its duration: the whole Ctrl-C test took
# 11 s and 23 s in two runs with both cores kept busy (2026-12-06, load 11-13).
START_BOUND_S = 120

BOTS = """
variant = "killer"
[rules]
players = 11
[default_agent]
kind = "baseline"
"""

# The fake provider inside each worker (one server per worker process), with a
# seat that answers out of range: repairs and fallbacks are in the comparison.
FAKE = """
variant = "killer"
[rules]
players = 11
day_limit = 2                 # KG-12: short games keep the suite fast
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[[agent]]
kind = "llm"
model = "fake/illegal"
seats = [11]
timeout_s = 10
[llm]
max_repairs = 1
concurrency = 8
"""

# Every seat calls one fake server shared by all workers (answers are seeded by
# the prompt, so which server answers does not change the game).
SHARED_FAKE = """
variant = "killer"
[rules]
players = 11
day_limit = 2                 # KG-12: short games keep the suite fast
[default_agent]
kind = "llm"
model = "fake/legal-random"
api_base = "{base}"
timeout_s = 20
[llm]
max_repairs = 1
concurrency = 8
"""


@pytest.fixture
def slow_fake() -> Iterator[FakeLLMServer]:
    """One fake provider for the whole cluster, slow enough to catch games mid-way."""
    with FakeLLMServer(latency_s=0.03) as server:
        yield server


def assert_same_games(local: BatchResult, remote: BatchResult) -> None:
    ours, theirs = by_seed(local), by_seed(remote)
    assert sorted(ours) == sorted(theirs)
    for seed, mine in ours.items():
        other = theirs[seed]
        assert other.finished and mine.finished, (mine, other)
        assert (other.reason, other.winners) == (mine.reason, mine.winners)
        assert mine.transcript and other.transcript
        assert comparable(Path(other.transcript)) == comparable(Path(mine.transcript)), seed


@pytest.mark.parametrize(("mode", "games"), [("send", 40), ("shared", 10)])
def test_bot_batch_equals_the_local_backend(tmp_path: Path, mode: str, games: int) -> None:
    loaded = loaded_of(BOTS)
    seeds = list(range(100, 100 + games))
    local = play_local(loaded, seeds, tmp_path / "local")
    remote, backend, seen = play_ray(loaded, seeds, tmp_path / "ray", transcripts=mode)
    assert_same_games(local, remote)
    assert len(seen) == games  # each result was handed on as its game finished
    assert not backend.resumed
    written = sorted(p.name for p in (tmp_path / "ray").glob("*.jsonl"))
    assert written == sorted(Path(r.transcript or "").name for r in remote.results)
    assert not (tmp_path / "ray" / STAGING).exists() or not any(
        (tmp_path / "ray" / STAGING).iterdir()
    )


def test_fake_provider_batch_equals_the_local_backend(tmp_path: Path) -> None:
    loaded = loaded_of(FAKE)
    seeds = list(range(10))
    local = play_local(loaded, seeds, tmp_path / "local")
    remote, _, _ = play_ray(loaded, seeds, tmp_path / "ray")
    assert_same_games(local, remote)
    some = Path(remote.results[0].transcript or "")
    calls = [line for line in comparable(some) if line["type"] == "call"]
    assert calls and all(
        call["model"] == "openai/fake-legal-random" or call["model"] == "openai/fake-illegal"
        for call in calls
    )


def kill_when_playing(
    backend: RayBackend, ident: str, lines: int, times: int, done: threading.Event
) -> list[int]:
    """SIGKILL the worker playing ``ident`` once it has sent ``lines`` lines, up to
    ``times`` times (each new attempt runs in a new worker process)."""
    killed: list[int] = []
    while len(killed) < times and not done.is_set():
        pid, sent = backend.running().get(ident, (0, 0))
        if pid and pid not in killed and (sent >= lines or killed):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        time.sleep(0.05)
    return killed


def run_in_thread(
    backend: RayBackend, loaded_text: str, seeds: list[int], out: Path
) -> tuple[threading.Thread, list[BatchResult], threading.Event, list[str]]:
    """The batch on a thread; also each game's ident (how the tracker names it)."""
    out.mkdir(parents=True, exist_ok=True)
    box: list[BatchResult] = []
    done = threading.Event()
    jobs = jobs_for(loaded_of(loaded_text), seeds, out)

    def go() -> None:
        box.append(backend.run(jobs, lambda result: None))
        done.set()

    thread = threading.Thread(target=go)
    thread.start()
    return thread, box, done, [game_ident(job) for job in jobs]


def test_a_killed_worker_s_game_is_resumed_and_counted_once(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    seeds = [5, 6]
    backend = RayBackend(BackendOptions("ray"))
    thread, box, done, idents = run_in_thread(backend, text, seeds, tmp_path / "ray")
    killed = kill_when_playing(backend, idents[0], lines=40, times=1, done=done)
    thread.join(timeout=280)
    assert killed, "the game ended before its worker could be killed"
    batch = box[0]
    results = by_seed(batch)
    assert sorted(results) == seeds and all(r.finished for r in results.values())
    assert backend.resumed == [idents[0]]
    assert results[5].resumed and not results[6].resumed
    ray_files = sorted((tmp_path / "ray").glob("killer-s5-*.jsonl"))
    assert len(ray_files) == 1  # one transcript for the game, finished in place
    local = play_local(loaded_of(text), [5], tmp_path / "local")
    mine = Path(local.results[0].transcript or "")
    assert events_of(ray_files[0]) == events_of(mine)
    assert comparable(ray_files[0])[-1]["results"] == comparable(mine)[-1]["results"]


def test_a_game_whose_worker_keeps_dying_fails_with_its_seed(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    backend = RayBackend(BackendOptions("ray"))
    thread, box, done, idents = run_in_thread(backend, text, [7, 8], tmp_path / "ray")
    killed = kill_when_playing(backend, idents[0], lines=20, times=3, done=done)
    thread.join(timeout=280)
    assert len(killed) == 3
    results = by_seed(box[0])
    assert sorted(results) == [7, 8]
    lost = results[7]
    assert lost.error is not None and lost.error.startswith("worker lost 3 times")
    assert lost.transcript and Path(lost.transcript).is_file()  # kept for sandbox resume
    assert results[8].finished  # the batch went on


def test_the_limiter_caps_calls_to_one_provider_across_workers(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    loaded = loaded_of(text)
    # Without a limit one game alone has more calls in flight (simultaneous votes).
    play_ray(loaded, [1], tmp_path / "free")
    assert slow_fake.max_in_flight > 3
    slow_fake.max_in_flight = 0
    limits = parse_limits(["openai=3"], [])
    batch, backend, _ = play_ray(loaded, [1, 2], tmp_path / "capped", limits=limits)
    assert all(r.finished for r in batch.results)
    assert slow_fake.max_in_flight == 3  # reached, never passed, across both workers
    assert backend.peaks() == {"openai": 3}


def test_ctrl_c_stops_the_batch_with_resumable_transcripts(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    out = tmp_path / "ray"
    out.mkdir()
    backend = RayBackend(BackendOptions("ray", workers=2))
    # Seed 21 is a one-day game (43 decisions), seed 25 a long one (108): 21
    # ends while 25 plays.
    short = loaded_of(text.replace("day_limit = 2", "day_limit = 1"))
    long = loaded_of(text.replace("day_limit = 2", "day_limit = 4"))
    jobs = jobs_for(short, [21], out) + jobs_for(long, [25, 23, 24], out)
    playing = game_ident(jobs[1])

    def stop(result: object) -> None:
        # Ctrl-C once 25 provably plays (its worker has sent transcript lines):
        # on a busy machine its worker may still be starting when 21 ends.
        deadline = time.monotonic() + START_BOUND_S
        while backend.running().get(playing, (0, 0))[1] == 0:
            assert time.monotonic() < deadline, "seed 25 never started"
            time.sleep(0.05)
        raise KeyboardInterrupt  # what Ctrl-C does while the driver hands on a result

    batch = backend.run(jobs, stop)
    assert batch.interrupted
    results = by_seed(batch)
    assert set(results) == {21, 25}  # the two running games; 23 and 24 never started
    assert [r.seed for r in batch.finished] == [21]
    assert [r.seed for r in batch.cut_short] == [25]
    assert not list(out.glob("killer-s23-*")) and not list(out.glob("killer-s24-*"))
    for cut in batch.cut_short:
        path = Path(cut.transcript or "")
        assert path.parent == out
        record = resume(path)  # finished from where it stopped
        assert record.outcome is not None
