"""Games per second on a local Ray cluster against the fake provider at a fixed
latency, with 1 and 2 workers, and the Ray backend's overhead per game versus
the local backend.

Every seat of an 11-player Killer game (``day_limit`` 2 by default, to keep a
run short) calls one fake server in this process whose every answer takes
``--latency`` seconds, so a game is mostly waiting, as with a real provider.
Each configuration first plays one game per worker untimed (worker processes
import litellm once, ~5 s), then times ``--games`` games (seeds 0..N-1).

- local ×1: the local backend in this process (``sandbox batch --jobs 1``);
- local ×2: the local backend with 2 worker processes (``--jobs 2``; its pool is
  new for each batch, so its figure includes the workers' start);
- ray ×1, ray ×2: the Ray backend on a cluster started with 1 or 2 CPUs
  (``ray.init(num_cpus=...)``, loopback; the start is printed, not timed in).

Overhead per game = (ray ×1 wall − local ×1 wall) ÷ games: what submitting a
task, the tracker's line stream and sending the transcript back add to a game.

Run: .venv/bin/python bench/bench_ray.py [--games 6] [--latency 0.2] [--day-limit 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

import ray

from sandbox.batch.backends import BackendOptions
from sandbox.batch.backends.ray import RayBackend
from sandbox.batch.run import BatchResult, GameJob, jobs_for, run_batch
from sandbox.models.fake import FakeLLMServer
from sandbox.session.gamefile import LoadedConfig, parse_config

GAME = """
variant = "killer"
[rules]
players = 11
day_limit = {day_limit}
[default_agent]
kind = "llm"
model = "fake/legal-random"
api_base = "{base}"
timeout_s = 60
[llm]
concurrency = 8
"""

Runner = Callable[[list[GameJob]], BatchResult]


def loaded_for(base: str, day_limit: int) -> LoadedConfig:
    return parse_config(tomllib.loads(GAME.format(base=base, day_limit=day_limit)))


def timed(
    name: str, runner: Runner, loaded: LoadedConfig, args: argparse.Namespace, warm: int, out: Path
) -> float:
    """Wall seconds for ``args.games`` games after ``warm`` untimed ones."""
    out.mkdir(parents=True, exist_ok=True)
    if warm:
        runner(jobs_for(loaded, list(range(1000, 1000 + warm)), out / "warm"))
    jobs = jobs_for(loaded, list(range(args.games)), out)
    started = time.perf_counter()
    batch = runner(jobs)
    wall = time.perf_counter() - started
    done = len(batch.finished)
    print(f"{name:9} {done}/{args.games} games in {wall:6.1f} s  ·  {done / wall:.3f} games/s")
    return wall


def local_runner(workers: int) -> Runner:
    return lambda jobs: run_batch(jobs, workers, lambda result: None)


def ray_run(cpus: int, loaded: LoadedConfig, args: argparse.Namespace, out: Path) -> float:
    started = time.perf_counter()
    ray.init(
        num_cpus=cpus,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="ERROR",
        log_to_driver=False,
    )
    print(f"(ray.init with {cpus} CPU(s): {time.perf_counter() - started:.1f} s)")
    try:
        backend = RayBackend(BackendOptions("ray"))
        return timed(
            f"ray ×{cpus}", lambda jobs: backend.run(jobs, lambda r: None), loaded, args, cpus, out
        )
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--day-limit", type=int, default=2)
    args = parser.parse_args()
    with FakeLLMServer(latency_s=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        loaded = loaded_for(server.base_url, args.day_limit)
        root = Path(tmp)
        print(
            f"Killer 11, day_limit {args.day_limit}, fake provider at {args.latency} s a call, "
            f"{args.games} games per configuration"
        )
        local_1 = timed("local ×1", local_runner(1), loaded, args, 1, root / "l1")
        timed("local ×2", local_runner(2), loaded, args, 0, root / "l2")
        ray_1 = ray_run(1, loaded, args, root / "r1")
        ray_2 = ray_run(2, loaded, args, root / "r2")
        calls = server.chat_requests
        print(f"ray ×2 ÷ ray ×1 speed-up: {ray_1 / ray_2:.2f}")
        print(f"Ray overhead per game vs local ×1: {(ray_1 - local_1) / args.games:+.2f} s")
        print(f"({calls} calls answered by the fake server in all)")


if __name__ == "__main__":
    main()
