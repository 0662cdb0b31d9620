"""Long runs (issue 25, item 5), bounded for CI: games in flight in one process
(as a batch worker with ``--jobs 1`` plays them) leave open files and threads
exactly flat from round to round after the warm-up, and memory growth below a
generous bound. bench/bench_longrun.py does the measuring; 500 games with it
are in docs/faults.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Observed: +9 MB per 100 games over games 100..300 while the answer caches
# fill to their entry limits (then flat); 30 games after a 10-game warm-up
# stay far below this.
RSS_BOUND_MB = 64.0


@pytest.mark.slow
@pytest.mark.timeout(1500)  # a shared CI machine: the bound is memory, never time
def test_games_in_flight_leave_files_and_threads_flat_and_memory_bounded() -> None:
    args = ["--games", "30", "--every", "10", "--warmup", "10", "--in-flight", "10", "--json"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_longrun.py"), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["failed"] == []
    after = [s for s in report["samples"] if s["games"] >= 10]
    assert len(after) == 3
    assert {s["fds"] for s in after} == {after[0]["fds"]}, after  # no file left open
    assert {s["threads"] for s in after} == {after[0]["threads"]}, after
    growth = report["growth_after_warmup"]
    assert growth["rss_mb"] < RSS_BOUND_MB, report["samples"]
