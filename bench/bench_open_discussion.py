"""Calls and tokens per day: KG-8's turns against an open day (OD-1 … OD-6).

Plays the same seeds of a Killer game twice on the fake provider, once with
``discussion = "turns"`` and once with ``discussion = "open"`` (every other key
the same), and prints per protocol: model calls, input and output tokens (and
the cached share of the input), each per game day, and the speeches per day. A
day is a Killer day reached (night n is followed by day n). An open day asks
every living seat each round, so it costs more calls; a wait's answer is short.

Run:  .venv/bin/python bench/bench_open_discussion.py [--games N] [--players 12]
      [--model fake/legal-random] [--language en]
Seeds are 0..N-1, so a run is reproducible. No figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

GAME = """variant = "killer"
seed = {seed}
name = "bench-open-{protocol}"

[rules]
players = {players}
discussion = "{protocol}"

[default_agent]
kind = "llm"
model = "{model}"
timeout_s = 30

[llm]
language = "{language}"
max_repairs = 1
concurrency = 8

[run]
out = "{out}"
"""


def play(folder: Path, protocol: str, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    """One game through ``sandbox run --json``: its stats, days and speeches."""
    out = folder / protocol
    game = folder / f"{protocol}-{seed}.toml"
    game.write_text(
        GAME.format(
            seed=seed,
            protocol=protocol,
            players=args.players,
            model=args.model,
            language=args.language,
            out=out,
        ),
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "sandbox", "run", str(game), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    kinds: Counter[str] = Counter()
    days = 0
    for line in Path(result["transcript"]).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") != "event":
            continue
        kinds[record["kind"]] += 1
        if record["kind"] == "killer.dawn":
            days = max(days, int(record["data"]["day"]))
    stats = result["stats"]
    return {
        "days": max(days, 1),
        "calls": stats["calls"],
        "tokens_in": stats["tokens_in"],
        "tokens_out": stats["tokens_out"],
        "tokens_cached": stats.get("tokens_cached", 0),
        "speeches": kinds["killer.speech"],
        "rounds": kinds["discussion.round"],
    }


def report(protocol: str, games: list[dict[str, Any]]) -> str:
    days = sum(g["days"] for g in games)

    def per_day(key: str) -> float:
        return sum(g[key] for g in games) / days

    cached = sum(g["tokens_cached"] for g in games) / max(1, sum(g["tokens_in"] for g in games))
    return (
        f"{protocol:6} games {len(games):3}  days {days:4}  per day: "
        f"calls {per_day('calls'):7.1f}  tokens in {per_day('tokens_in'):10.0f} "
        f"({cached:.0%} cached)  out {per_day('tokens_out'):7.0f}  "
        f"speeches {per_day('speeches'):5.1f}  rounds {per_day('rounds'):4.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--model", default="fake/legal-random")
    parser.add_argument("--language", default="en")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for protocol in ("turns", "open"):
            games = [play(folder, protocol, seed, args) for seed in range(args.games)]
            print(report(protocol, games), flush=True)


if __name__ == "__main__":
    main()
