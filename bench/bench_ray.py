"""Games per hour on a local 2-CPU Ray cluster with games in flight, against the
local backend with the same settings and against Ray with one game per task,
in one run; and (``--capacity``) a small grid of workers × games in flight ×
provider latency, with latency jitter and rate-limit errors, for the capacity
table of docs/scale-out.md.

Every seat of an 11-player Killer game (``--day-limit``, default: the variant's
own) calls one fake provider running in its own process on 127.0.0.1; each call
waits ``--latency`` s plus a uniform draw in [0, ``--jitter``] s, and a share
``--rate-429`` of calls is answered HTTP 429 (the client backs off and retries,
as with a real provider). Seeds 0..N-1; every batch starts its own workers
(local worker processes, Ray actors or tasks), so their start is in the timing,
as it is for a user; Ray's own start (``ray.init``) is printed, not timed.

The comparison (default):

- local: ``--jobs W --games-in-flight F`` (the local backend, W processes);
- ray in flight: ``--backend ray --jobs W --games-in-flight F`` (W async actors);
- ray one per task: ``--backend ray --jobs W`` with one game per task (W at once),
  over ``--games-one`` games (a rate: fewer games are enough).

games/hour = finished games ÷ wall × 3600; the ratios: ray in flight ÷ local
(target ≥ 0.8) and ray in flight ÷ ray one per task (target ≥ 15).

Run: .venv/bin/python bench/bench_ray.py [--games 200] [--games-one 8] [--workers 2]
     [--in-flight 50] [--latency 0.5] [--jitter 0] [--rate-429 0] [--capacity]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GAME = """
variant = "killer"
[rules]
players = 11
{day_limit}
[default_agent]
kind = "llm"
model = "fake/legal-random"
api_base = "{base}"
timeout_s = 60
[llm]
concurrency = 64
"""


# ------------------------------------------------------------ the provider
def serve(latency: float, jitter: float, rate_429: float) -> None:
    """The fake provider, with a share of 429s drawn per request (seeded)."""
    from sandbox.models.fake import FakeLLMServer

    class Limited(FakeLLMServer):
        def enter(self, record: dict[str, Any], *rest: Any) -> tuple[str | None, float]:
            fault, wait = super().enter(record, *rest)
            if fault is None and draw.random() < rate_429:
                fault = "429"
            return fault, wait

    draw = random.Random(7)
    server = Limited(latency_s=latency, latency_jitter_s=jitter).start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()  # until the bench closes our stdin
    finally:
        print(json.dumps({"chat_requests": server.chat_requests}), flush=True)
        server.stop()


@contextmanager
def provider(latency: float, jitter: float, rate_429: float) -> Iterator[str]:
    code = f"import bench_ray as b; b.serve({latency}, {jitter}, {rate_429})"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent,
    )
    assert proc.stdout is not None and proc.stdin is not None
    try:
        match = re.search(r"http://\S+/v1", proc.stdout.readline())
        if match is None:
            raise RuntimeError("the fake provider did not start")
        yield match.group(0)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


# --------------------------------------------------------------- batches
@dataclass
class Run:
    name: str
    games: int
    finished: int
    wall_s: float
    calls: int
    chain: float  # mean sequential calls of a game (its critical path)
    load: tuple[float, float]  # load average (1 min) before and after

    @property
    def per_hour(self) -> float:
        return self.finished / self.wall_s * 3600


def chain_of(path: Path) -> tuple[int, int]:
    """(calls, sequential calls): per runner step the most calls one seat made."""
    per_seat: Counter[tuple[str, int]] = Counter()
    calls = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if '"type":"call"' in line:
            call = json.loads(line)
            calls += 1
            per_seat[(str(call["request_id"]).split(".", 1)[0], int(call["seat"]))] += 1
    longest: dict[str, int] = {}
    for (step, _), count in per_seat.items():
        longest[step] = max(longest.get(step, 0), count)
    return calls, sum(longest.values())


Runner = Callable[[list[Any]], Any]


def timed(name: str, runner: Runner, text: str, games: int, out: Path) -> Run:
    from sandbox.batch.run import jobs_for
    from sandbox.session.gamefile import parse_config

    out.mkdir(parents=True, exist_ok=True)
    jobs = jobs_for(parse_config(tomllib.loads(text)), list(range(games)), out)
    before = os.getloadavg()[0]
    started = time.perf_counter()
    batch = runner(jobs)
    wall = time.perf_counter() - started
    figures = [chain_of(p) for p in out.glob("*.jsonl")]
    run = Run(
        name,
        games,
        len(batch.finished),
        wall,
        sum(c for c, _ in figures),
        sum(s for _, s in figures) / max(1, len(figures)),
        (before, os.getloadavg()[0]),
    )
    print(
        f"{name:22} {run.finished}/{games} games in {wall:7.1f} s  ·  {run.per_hour:8,.0f} "
        f"games/hour  ·  {run.calls / max(1, run.finished):.0f} calls, "
        f"{run.chain:.0f} sequential per game  ·  load {before:.1f}→{run.load[1]:.1f}",
        flush=True,
    )
    return run


def local(workers: int, in_flight: int) -> Runner:
    from sandbox.batch.run import run_batch

    return lambda jobs: run_batch(jobs, workers, lambda r: None, in_flight=in_flight)


def on_ray(workers: int, in_flight: int) -> Runner:
    from sandbox.batch.backends import BackendOptions
    from sandbox.batch.backends.ray import RayBackend

    backend = RayBackend(BackendOptions("ray", workers=workers, in_flight=in_flight))
    return lambda jobs: backend.run(jobs, lambda r: None)


@contextmanager
def ray_cluster(cpus: int) -> Iterator[None]:
    import ray

    started = time.perf_counter()
    ray.init(
        num_cpus=cpus,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="ERROR",
        log_to_driver=False,
    )
    print(f"(ray.init with {cpus} CPUs: {time.perf_counter() - started:.1f} s, not timed)")
    try:
        yield
    finally:
        ray.shutdown()


# ------------------------------------------------------------------ modes
def compare(args: argparse.Namespace, base: str, root: Path) -> None:
    text = game_text(base, args.day_limit)
    w, f = args.workers, args.in_flight
    here = timed(f"local {w}×{f}", local(w, f), text, args.games, root / "local")
    with ray_cluster(w):
        there = timed(f"ray {w}×{f} (actors)", on_ray(w, f), text, args.games, root / "ray")
        one = timed(f"ray {w}×1 (tasks)", on_ray(w, 1), text, args.games_one, root / "one")
    print(f"ray in flight ÷ local:            {there.per_hour / here.per_hour:.2f} (target ≥ 0.8)")
    print(f"ray in flight ÷ one game per task: {there.per_hour / one.per_hour:.1f} (target ≥ 15)")


def capacity(args: argparse.Namespace, root: Path) -> None:
    """workers × in flight × latency on Ray (jitter and 429s as given), each run
    4 rounds of its games in flight (at most ``--games``), beside the model:
    games/hour = W × F × 3600 ÷ (S × L̄), S the sequential calls of a game
    (measured), L̄ the mean latency of a call."""
    grid = [tuple(int(n) for n in cell.split("x")) for cell in args.grid.split(",")]
    rows = []
    with ray_cluster(2):
        for latency in (args.latency, 2 * args.latency):
            jitter = args.jitter * latency / args.latency
            cells = grid if latency == args.latency else grid[-1:]  # the largest, slower
            if latency != args.latency and not args.slower:
                continue
            with provider(latency, jitter, args.rate_429) as base:
                text = game_text(base, args.day_limit)
                for workers, in_flight in cells:
                    games = min(args.games, 4 * workers * in_flight)
                    name = f"ray {workers}×{in_flight} @{latency}+U(0,{jitter:g})s"
                    out = root / f"cap-{workers}-{in_flight}-{latency}"
                    run = timed(name, on_ray(workers, in_flight), text, games, out)
                    rows.append((workers, in_flight, latency + jitter / 2, run))
    print(
        "| workers | in flight | mean latency | games | wall | games/hour | model | "
        "calls/game | sequential | 10,000 games |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for workers, in_flight, mean, run in rows:
        model = workers * in_flight * 3600 / (run.chain * mean)
        print(
            f"| {workers} | {in_flight} | {mean:.2f} s | {run.finished} | {run.wall_s:.0f} s | "
            f"{run.per_hour:,.0f} | {model:,.0f} | {run.calls / max(1, run.finished):.0f} | "
            f"{run.chain:.0f} | {10_000 / run.per_hour:.1f} h |"
        )


def game_text(base: str, day_limit: int | None) -> str:
    limit = f"day_limit = {day_limit}" if day_limit else ""
    return GAME.format(base=base, day_limit=limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--games-one", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--jitter", type=float, default=0.0)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--day-limit", type=int, default=None)
    parser.add_argument("--capacity", action="store_true", help="the capacity grid instead")
    parser.add_argument("--grid", default="1x10,2x10,1x50,2x50", help="capacity: WxF,...")
    parser.add_argument(
        "--slower",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="capacity: also the last cell at twice the latency",
    )
    args = parser.parse_args()
    print(
        f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} CPUs; Killer 11; fake "
        f"provider in its own process: {args.latency} s + U(0, {args.jitter}) s a call, "
        f"{args.rate_429:.0%} answered 429"
    )
    with tempfile.TemporaryDirectory() as tmp:
        if args.capacity:
            capacity(args, Path(tmp))
            return
        with provider(args.latency, args.jitter, args.rate_429) as base:
            compare(args, base, Path(tmp))


if __name__ == "__main__":
    main()
