"""Games in flight per worker: a batch of Killer games on the fake provider.

Starts the fake provider in its own process on 127.0.0.1 with a fixed latency
per call, then plays the same batch (seeds 0..G-1, 11 players, every seat
``fake/legal-random``) with ``sandbox batch --jobs J`` twice: with
``--games-in-flight 1`` (one game at a time per worker, as before) and with
``--games-in-flight N``. For each it prints:

- wall time and games/hour (games ÷ wall);
- the bound: the larger of (a) the critical path of the slowest game — per
  runner step, the longest chain of calls one seat made (a repair is a second
  call in the chain), summed over steps, × latency — and (b) total calls ÷
  the calls the batch may have in flight × latency, where that concurrency is
  the game file's per-model ``[llm] concurrency`` (one limit per worker's event
  loop) × J, or the games in flight if fewer could ask at once;
- wall ÷ bound (target ≤ 1.10) and the speed-up in games/hour (target ≥ 20×);
- the load average before and after each run (the machine may be shared).

Games/hour is a rate: the one-at-a-time run may use fewer games (--games-one)
so it does not take most of an hour.

Run: .venv/bin/python bench/bench_inflight.py [--games 200] [--games-one 20]
     [--jobs 2] [--in-flight 50] [--latency 0.5] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

GAME = """variant = "killer"
seed = 0
name = "bench-inflight"
[rules]
players = 11
[default_agent]
kind = "llm"
model = "fake/legal-random"
api_base = "{base_url}"
timeout_s = 60
[llm]
concurrency = {concurrency}
[run]
out = "{out}"
"""

SERVE = (
    "from sandbox.models.fake import run_server; "
    "run_server('127.0.0.1', 0, 'legal-random', {latency})"
)
SANDBOX = [sys.executable, "-c", "from sandbox.cli.main import main; main()"]


@dataclass
class Run:
    in_flight: int
    games: int
    wall_s: float
    calls: int
    slowest_chain: int  # sequential calls of the game with the longest critical path
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    cpu_s: float  # CPU time of the batch process and its workers (user + system)

    @property
    def per_hour(self) -> float:
        return self.games / self.wall_s * 3600


@contextmanager
def fake_provider(latency: float) -> Iterator[str]:
    """The fake server in its own process, as a remote provider would be."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE.format(latency=latency)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        match = re.search(r"http://\S+/v1", proc.stdout.readline())
        if match is None:
            raise RuntimeError("the fake server did not start")
        yield match.group(0)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def chain_of(path: Path) -> tuple[int, int]:
    """(calls, sequential calls) of one transcript: per step the most calls any
    one seat made (the runner asks a step's seats at once), summed."""
    per_seat: Counter[tuple[str, int]] = Counter()
    calls = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if '"type":"call"' not in line:
            continue
        call = json.loads(line)
        calls += 1
        per_seat[(str(call["request_id"]).split(".", 1)[0], int(call["seat"]))] += 1
    longest: dict[str, int] = {}
    for (step, _), count in per_seat.items():
        longest[step] = max(longest.get(step, 0), count)
    return calls, sum(longest.values())


def play(
    folder: Path, base_url: str, games: int, jobs: int, in_flight: int, concurrency: int
) -> Run:
    out = folder / f"n{in_flight}"
    config = folder / f"n{in_flight}.toml"
    config.write_text(
        GAME.format(base_url=base_url, concurrency=concurrency, out=out), encoding="utf-8"
    )
    command = [
        *SANDBOX,
        "batch",
        str(config),
        "--games",
        str(games),
        "--jobs",
        str(jobs),
        "--games-in-flight",
        str(in_flight),
        "--quiet",
        "--json",
    ]
    load_before = os.getloadavg()
    cpu_before = cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    cpu = cpu_of_children() - cpu_before
    if done.returncode != 0:
        raise RuntimeError(f"batch failed ({done.returncode}): {done.stderr[-500:]}")
    figures = [chain_of(p) for p in out.glob("*.jsonl")]
    return Run(
        in_flight,
        games,
        wall,
        sum(c for c, _ in figures),
        max(s for _, s in figures),
        load_before,
        os.getloadavg(),
        cpu,
    )


def cpu_of_children() -> float:
    """CPU seconds of this process's finished children (the batch and its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def report(run: Run, latency: float, jobs: int, concurrency: int) -> float:
    in_flight_calls = min(concurrency * jobs, run.in_flight * jobs * 11)
    path_s = run.slowest_chain * latency
    calls_s = run.calls / in_flight_calls * latency
    bound = max(path_s, calls_s)
    print(f"== --games-in-flight {run.in_flight}: {run.games} games, --jobs {jobs}")
    print(f"  wall {run.wall_s:.1f}s -> {run.per_hour:.0f} games/hour")
    print(
        f"  calls {run.calls}; slowest game's critical path {run.slowest_chain} calls "
        f"= {path_s:.1f}s; calls / {in_flight_calls} in flight x latency = {calls_s:.1f}s"
    )
    if run.in_flight > 1:
        print(f"  wall / bound {run.wall_s / bound:.3f} (target <= 1.10)")
    else:
        print("  (one game at a time per worker: the games' critical paths add up)")
    cores = os.cpu_count() or 1
    print(
        f"  CPU of the batch and its workers {run.cpu_s:.1f}s "
        f"({run.cpu_s / max(1, run.calls) * 1000:.1f} ms per call; "
        f"at least {run.cpu_s / cores:.1f}s of wall on {cores} idle cores)"
    )
    print(
        "  load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
            *run.load_before, *run.load_after
        )
    )
    return run.per_hour


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--games-one",
        type=int,
        default=20,
        help="games of the one-at-a-time run (a rate: fewer is fine)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=64,
        help="the game file's per-model [llm] concurrency (per worker)",
    )
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, latency {args.latency}s per call, fake provider on loopback")
    with fake_provider(args.latency) as base_url, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one = play(folder, base_url, args.games_one, args.jobs, 1, args.concurrency)
        today = report(one, args.latency, args.jobs, args.concurrency)
        many = play(folder, base_url, args.games, args.jobs, args.in_flight, args.concurrency)
        now = report(many, args.latency, args.jobs, args.concurrency)
    print(f"speed-up in games/hour: {now / today:.1f}x (target >= 20x)")


if __name__ == "__main__":
    main()
