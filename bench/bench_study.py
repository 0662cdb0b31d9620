"""Study benchmark: playing a bot study, then the time the analysis takes.

Plays a Killer study (baseline bot vs random seats, matrix schedule, role
rotation) into a temporary folder and prints:
- games per second for the play (the referee and the bots, transcripts written);
- seconds to read the transcripts, to summarise them (win rates, ratings with
  200 bootstrap resamples each, metrics with cluster bootstraps), to export CSV
  and to write the report (matplotlib charts).

Run:  .venv/bin/python bench/bench_study.py [--per-cell N] [--jobs J]
No timing is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.analysis.export import export
from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.report.page import write_report
from sandbox.study.run import plan_run, run_study
from sandbox.study.spec import load_study

STUDY = """name = "bench"
game = "game.toml"
games_per_cell = {per_cell}
jobs = {jobs}
out = "out"

[[contestant]]
name = "bot"
kind = "baseline"

[[contestant]]
name = "dice"
kind = "random"

[[contestant]]
name = "dice2"
kind = "random"
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-cell", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "game.toml").write_text('variant = "killer"\n[rules]\nplayers = 11\n')
        path = root / "study.toml"
        path.write_text(STUDY.format(per_cell=args.per_cell, jobs=args.jobs))
        study = load_study(path)
        plan = plan_run(study)
        started = time.perf_counter()
        result = run_study(study, plan, lambda r: None)
        played = time.perf_counter() - started
        games = len(result.finished)
        print(f"played {games} games in {played:.1f} s: {games / played:.1f} games/s")
        timings = {}
        started = time.perf_counter()
        loaded = load_games([root / "out"])
        timings["read transcripts"] = time.perf_counter() - started
        started = time.perf_counter()
        summary = summarise_games(loaded)
        timings["summarise (ratings, metrics, bootstraps)"] = time.perf_counter() - started
        started = time.perf_counter()
        export(loaded.games, root / "export", "csv")
        timings["export csv"] = time.perf_counter() - started
        started = time.perf_counter()
        write_report(summary, root / "report.html", "bench")
        timings["report"] = time.perf_counter() - started
        for name, seconds in timings.items():
            print(f"{name}: {seconds:.2f} s")
        for who, r in summary["ratings"].items():
            print(f"  {who}: Elo {r['elo']} {r['elo_ci95']}, OpenSkill mu {r['openskill_mu']}")


if __name__ == "__main__":
    main()
