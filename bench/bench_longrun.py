"""A long study in one process: are file descriptors, threads and memory flat?

Plays a fake-provider Killer study (two fake contestants, every seat an LLM
seat) the way one batch worker does: ``--in-flight`` games at once as tasks of
one event loop, transcripts through the background line writer
(sandbox/batch/workers.py, ``--jobs 1``). The fake provider runs in its own
process (``sandbox fake-llm``), so what is measured is the sandbox's own
footprint, not the fake's request log. Games are played in rounds of
``--every``; between rounds (no game in flight) it prints: open file
descriptors (``/proc/self/fd``), threads, RSS (MB, after ``gc.collect()``),
and the sizes of the process-wide caches. Then the growth
after ``--warmup`` games: fds and threads (exact), RSS (MB, and per 100 games).

``--four-factions N`` also plays N of the longest Four Factions games (HP 32,
the day limit ``--day-limit``, LLM seats on the fake provider or
``--ff-seats baseline`` bots) one at a time and prints the peak RSS of each;
with ``--games 0`` the peak is the game's own.

Run: .venv/bin/python bench/bench_longrun.py [--games 500] [--in-flight 16]
     [--every 100] [--warmup 100] [--four-factions 0] [--ff-seats llm]
     [--day-limit 20] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

GAME = """variant = "{variant}"
seed = 0
[rules]
{rules}
[default_agent]
kind = "llm"
model = "fake/legal-random"
api_base = "{base_url}"
timeout_s = 60
[llm]
concurrency = 64
"""

STUDY = """name = "longrun"
game = "game.toml"
games_per_cell = {per_cell}
seed = 1
out = "out"
[[contestant]]
name = "random"
kind = "llm"
model = "fake/legal-random"
api_base = "{base_url}"
timeout_s = 60
[[contestant]]
name = "fenced"
kind = "llm"
model = "fake/legal-fenced"
api_base = "{base_url}"
timeout_s = 60
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def fake_provider() -> Iterator[str]:
    """``sandbox fake-llm`` in its own process; yields its OpenAI base URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "sandbox", "fake-llm", "--port", str(port)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(30)


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def threads() -> int:
    return threading.active_count()


def executor_threads() -> int:
    """Threads of asyncio's default executor (named ``asyncio_N``): it starts
    them one by one as DNS look-ups and ``to_thread`` calls overlap, up to
    ``min(32, cpus + 4)``, so they may still grow after a short warm-up."""
    return sum(t.name.startswith("asyncio_") for t in threading.enumerate())


def rss_mb(field: str = "VmRSS") -> float:
    """The process's resident memory (or its peak, ``VmHWM``) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def cache_sizes() -> dict[str, Any]:
    """The process-wide caches that grow with what games ask: entries and the
    bytes charged to them (sandbox/agents/llm/lru.py), and their hit counts."""
    from sandbox.agents.llm import answer_format as af
    from sandbox.agents.llm.prompt import record

    names = ("_decision_model", "beliefs_model", "model_schema", "distribution_model")
    tables: dict[str, Any] = {name: getattr(af, name) for name in names}
    tables["response_format"] = af.response_format
    tables["wire_schema"] = af.wire_schema
    sizes: dict[str, Any] = {}
    for name, table in tables.items():
        info = table.cache_info()
        sizes[name] = {
            "entries": len(table.cache),
            "kb": round(info.currsize / 1024),
            "max_kb": round((info.maxsize or 0) / 1024),
            "hits": info.hits,
            "misses": info.misses,
        }
    lines = record._LINES_CACHE  # a plain cache: no hit counts
    sizes["_LINES_CACHE"] = {
        "entries": len(lines),
        "kb": round(lines.currsize / 1024),
        "max_kb": round(lines.maxsize / 1024),
    }
    return sizes


def sample(games: int) -> dict[str, Any]:
    gc.collect()
    return {
        "games": games,
        "fds": fds(),
        "threads": threads(),
        "executor_threads": executor_threads(),
        "executor_max": min(32, (os.cpu_count() or 1) + 4),
        "rss_mb": round(rss_mb(), 1),
        "caches": cache_sizes(),
    }


async def play_study(folder: Path, base_url: str, games: int, in_flight: int, every: int) -> Any:
    from sandbox.batch.run import play_one_async
    from sandbox.study.run import plan_run
    from sandbox.study.spec import load_study

    (folder / "game.toml").write_text(
        GAME.format(variant="killer", rules="players = 11", base_url=base_url), encoding="utf-8"
    )
    # more planned than played: the first ``games`` of the plan
    (folder / "study.toml").write_text(
        STUDY.format(per_cell=games, base_url=base_url), encoding="utf-8"
    )
    jobs = plan_run(load_study(folder / "study.toml")).todo[:games]
    samples = [sample(0)]
    failed: list[str] = []
    gate = asyncio.Semaphore(in_flight)

    async def one(job: Any) -> None:
        async with gate:
            result = await play_one_async(job)
        if not result.finished:
            failed.append(f"{result.key}: {result.error}")

    # In rounds of ``every`` games, sampled between rounds, when no game is in
    # flight: open files and threads then compare exactly from round to round.
    for start in range(0, len(jobs), every):
        await asyncio.gather(*(one(job) for job in jobs[start : start + every]))
        samples.append(sample(min(start + every, len(jobs))))
    return samples, failed


FF_BOTS = """variant = "four_factions"
seed = 0
[rules]
{rules}
[default_agent]
kind = "baseline"
"""


def longest_four_factions(
    folder: Path, base_url: str, count: int, seats: str, day_limit: int
) -> list[dict[str, Any]]:
    """The longest Four Factions games (HP 32, the day limit), one at a time:
    RSS before, after and at its peak (VmHWM: run with ``--games 0`` so the
    peak is the game's own, not the study's)."""
    from sandbox.session import play_game
    from sandbox.session.gamefile import load_config

    rules = f"hp = 32\nday_limit = {day_limit}"
    config = folder / "ff.toml"
    if seats == "llm":
        text = GAME.format(variant="four_factions", rules=rules, base_url=base_url)
    else:
        text = FF_BOTS.format(rules=rules)
    config.write_text(text, encoding="utf-8")
    loaded = load_config(config)
    rows = []
    for seed in range(count):
        gc.collect()
        before = rss_mb()
        start = time.monotonic()
        record = play_game(loaded, seed, folder / "ff")
        outcome = record.outcome
        gc.collect()
        rows.append(
            {
                "seed": seed,
                "seats": seats,
                "day_limit": day_limit,
                "reason": outcome.reason if outcome else None,
                "decisions": record.stats.decisions,
                "rss_before_mb": round(before, 1),
                "rss_mb": round(rss_mb(), 1),
                "peak_rss_mb": round(rss_mb("VmHWM"), 1),
                "seconds": round(time.monotonic() - start, 1),
            }
        )
    return rows


def growth(samples: list[dict[str, Any]], warmup: int) -> dict[str, Any]:
    after = [s for s in samples if s["games"] >= warmup]
    if len(after) < 2:
        return {}
    first, last = after[0], after[-1]
    games = last["games"] - first["games"]
    rss = last["rss_mb"] - first["rss_mb"]
    return {
        "from_game": first["games"],
        "to_game": last["games"],
        "fds": last["fds"] - first["fds"],
        "threads": last["threads"] - first["threads"],
        "rss_mb": round(rss, 1),
        "rss_mb_per_100_games": round(rss * 100 / games, 2),
        "warmup_rss_mb": round(first["rss_mb"] - samples[0]["rss_mb"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--four-factions", type=int, default=0)
    parser.add_argument("--ff-seats", choices=("llm", "baseline"), default="llm")
    parser.add_argument("--day-limit", type=int, default=20, help="FF-27 (1-200)")
    parser.add_argument("--json", action="store_true", help="one JSON object only")
    args = parser.parse_args()
    from sandbox.transcript import write_in_background

    write_in_background(True)  # as a batch worker does
    with tempfile.TemporaryDirectory() as tmp, fake_provider() as base_url:
        folder = Path(tmp)
        start = time.monotonic()
        samples, failed = (
            ([sample(0)], [])
            if args.games == 0
            else asyncio.run(play_study(folder, base_url, args.games, args.in_flight, args.every))
        )
        seconds = time.monotonic() - start
        ff = longest_four_factions(
            folder, base_url, args.four_factions, args.ff_seats, args.day_limit
        )
    report = {
        "games": args.games,
        "in_flight": args.in_flight,
        "seconds": round(seconds, 1),
        "failed": failed,
        "samples": samples,
        "growth_after_warmup": growth(samples, args.warmup),
        "four_factions_longest": ff,
    }
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.games} games, {args.in_flight} in flight, {seconds:.0f} s; failed: {failed}")
    print(f"{'games':>6} {'fds':>5} {'threads':>8} {'RSS MB':>8}  caches")
    for s in samples:
        caches = " ".join(f"{k}={v['entries']}/{v['kb']}KB" for k, v in s["caches"].items())
        print(f"{s['games']:>6} {s['fds']:>5} {s['threads']:>8} {s['rss_mb']:>8.1f}  {caches}")
    print("after warm-up:", json.dumps(report["growth_after_warmup"]))
    for row in ff:
        print("four factions (hp 32):", json.dumps(row))


if __name__ == "__main__":
    main()
