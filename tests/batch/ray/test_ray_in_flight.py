"""The Ray backend with games in flight (each worker an async actor playing
several games at once) on the real local cluster (2 CPUs, loopback): the same
games as the local backend, several games per worker at once, a killed worker's
games resumed on a fresh one to identical events, the limiter across actors,
and Ctrl-C starting no new game. Kept small: few games, a fast fake provider."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.batch.backends import BackendOptions
from sandbox.batch.backends.limits import parse_limits
from sandbox.batch.backends.ray import RayBackend
from sandbox.batch.jobs import GameResult
from sandbox.batch.run import jobs_for
from sandbox.cli.main import app
from sandbox.models.fake import FakeLLMServer
from sandbox.session import resume
from sandbox.transcript import read_transcript
from tests.batch.ray.conftest import by_seed, events_of, loaded_of, play_local, play_ray
from tests.batch.ray.test_ray_backend import (
    FAKE,
    SHARED_FAKE,
    assert_same_games,
    kill_when_playing,
    run_in_thread,
    slow_fake,
)

pytestmark = pytest.mark.usefixtures("cluster")
__all__ = ["slow_fake"]  # the fixture, shared with test_ray_backend


def most_games_per_worker(backend: RayBackend, done: threading.Event) -> list[int]:
    """Polls the tracker while the batch runs: the most games one worker process
    (pid) played at once, and how many distinct workers were seen."""
    most = [0, 0]
    pids: set[int] = set()
    while not done.is_set():
        per_pid = Counter(pid for pid, _ in backend.running().values())
        pids.update(per_pid)
        most[0] = max([most[0], *per_pid.values()])
        time.sleep(0.05)
    most[1] = len(pids)
    return most


@pytest.mark.parametrize(("mode", "games"), [("send", 6), ("shared", 4)])
def test_games_in_flight_on_ray_equal_the_local_backend(
    tmp_path: Path, mode: str, games: int
) -> None:
    loaded = loaded_of(FAKE)
    seeds = list(range(30, 30 + games))
    local = play_local(loaded, seeds, tmp_path / "local")
    backend = RayBackend(BackendOptions("ray", in_flight=games // 2, transcripts=mode))
    out = tmp_path / "ray"
    thread, box, done, _ = run_in_thread(backend, FAKE, seeds, out)
    most, workers = most_games_per_worker(backend, done)
    thread.join(timeout=280)
    assert_same_games(local, box[0])
    assert most >= 2  # one worker process played several games at once
    assert workers <= 2  # ...on the cluster's two workers (one actor per CPU)
    assert not backend.resumed


def test_a_killed_worker_s_games_are_resumed_to_identical_events(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    seeds = [40, 41, 42, 43]
    backend = RayBackend(BackendOptions("ray", in_flight=2))
    thread, box, done, idents = run_in_thread(backend, text, seeds, tmp_path / "ray")
    killed = kill_when_playing(backend, idents[0], lines=40, times=1, done=done)
    thread.join(timeout=280)
    assert killed, "the game ended before its worker could be killed"
    results = by_seed(box[0])
    assert sorted(results) == seeds and all(r.finished for r in results.values())
    # The killed actor's games (the watched one among them) were finished on a
    # fresh actor, each counted once; the other worker's games went on untouched.
    assert idents[0] in backend.resumed
    assert len(backend.resumed) == len(set(backend.resumed)) <= 2
    assert {r.seed for r in results.values() if r.resumed} == {
        seed for seed, ident in zip(seeds, idents, strict=True) if ident in backend.resumed
    }
    local = by_seed(play_local(loaded_of(text), seeds, tmp_path / "local"))
    for seed in seeds:
        files = sorted((tmp_path / "ray").glob(f"killer-s{seed}-*.jsonl"))
        assert len(files) == 1, seed  # one transcript per game, finished in place
        assert events_of(files[0]) == events_of(Path(local[seed].transcript or "")), seed


def test_the_limiter_caps_calls_across_actors(tmp_path: Path, slow_fake: FakeLLMServer) -> None:
    loaded = loaded_of(SHARED_FAKE.format(base=slow_fake.base_url))
    limits = parse_limits(["openai=3"], [])
    batch, backend, _ = play_ray(
        loaded, [1, 2, 3, 4], tmp_path / "capped", limits=limits, in_flight=2
    )
    assert all(r.finished for r in batch.results)
    assert slow_fake.max_in_flight == 3  # reached, never passed, over 4 games on 2 actors
    assert backend.peaks() == {"openai": 3}


def test_ctrl_c_starts_no_new_game_and_leaves_resumable_transcripts(
    tmp_path: Path, slow_fake: FakeLLMServer
) -> None:
    text = SHARED_FAKE.format(base=slow_fake.base_url)
    out = tmp_path / "ray"
    out.mkdir()
    backend = RayBackend(BackendOptions("ray", in_flight=2))  # 2 actors × 2 games

    handed: list[int] = []

    def stop(result: GameResult) -> None:
        handed.append(result.seed)
        raise KeyboardInterrupt  # what Ctrl-C does while the driver hands on a result

    short = loaded_of(text.replace("day_limit = 2", "day_limit = 1"))
    long = loaded_of(text.replace("day_limit = 2", "day_limit = 4"))
    jobs = jobs_for(short, [21], out) + jobs_for(long, [22, 23, 24, 25, 26], out)
    batch = backend.run(jobs, stop)
    assert batch.interrupted
    results = by_seed(batch)
    assert set(results) == {21, 22, 23, 24}  # the four in flight; 25 and 26 never started
    # the game whose result was being handed on is finished: usually the short
    # one (21), but a long game ended by an early win may come first
    assert len(handed) == 1 and handed[0] in {r.seed for r in batch.finished}
    # A long game may still end (by a win) as the cancel comes: then it is
    # reported finished, its file whole; every other one is cut short.
    assert {r.seed for r in batch.finished} | {r.seed for r in batch.cut_short} == set(results)
    assert batch.cut_short
    assert not list(out.glob("killer-s25-*")) and not list(out.glob("killer-s26-*"))
    for done in batch.finished:
        assert read_transcript(Path(done.transcript or "")).finished
    for cut in batch.cut_short:
        path = Path(cut.transcript or "")
        assert path.parent == out
        assert resume(path).outcome is not None  # finished from where it stopped


def test_games_in_flight_is_accepted_with_the_ray_backend(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_text(
        'variant = "killer"\nseed = 50\n[rules]\nplayers = 11\n'
        f'[default_agent]\nkind = "baseline"\n[run]\nout = "{tmp_path / "out"}"\n',
        encoding="utf-8",
    )
    runs = {}
    for extra in ([], ["--backend", "ray", "--games-in-flight", "3"]):
        result = CliRunner().invoke(
            app,
            [
                "batch",
                str(path),
                "--games",
                "4",
                "--json",
                "--out",
                str(tmp_path / str(len(extra))),
                *extra,
            ],
        )
        assert result.exit_code == 0, result.stderr
        runs[len(extra)] = json.loads(result.stdout)
    local, ray = runs[0], runs[4]
    assert ray["finished"] == 4
    assert [(g["seed"], g["reason"], g["winners"]) for g in ray["games"]] == [
        (g["seed"], g["reason"], g["winners"]) for g in local["games"]
    ]
