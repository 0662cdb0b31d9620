"""``sandbox study --games-in-flight``: the same study as one game at a time,
and a re-run after a cut finishes it; the cost cap holds with games in flight."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sandbox.batch.run import GameResult, run_batch
from sandbox.study.run import Budget, plan_run
from sandbox.study.spec import load_study
from sandbox.transcript import read_transcript
from tests.batch.helpers import comparable
from tests.study.test_study_run import files, run, study_file


def test_a_study_with_games_in_flight_equals_one_at_a_time(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    serial = run(study_file(tmp_path / "a", per_cell=2))
    many = run(study_file(tmp_path / "b", per_cell=2, jobs=2), "--games-in-flight", "3")
    assert many["finished"] == serial["finished"] == 4
    assert many["ratings"] == serial["ratings"] and many["win_rates"] == serial["win_rates"]
    first, second = games(tmp_path / "a"), games(tmp_path / "b")
    assert sorted(first) == sorted(second) and len(first) == 4
    for name, path in first.items():
        assert comparable(path)[0][1:] == comparable(second[name])[0][1:]  # events, outcome


def games(folder: Path) -> dict[tuple[str, int], Path]:
    """A study's transcripts by (cell, seed)."""
    out: dict[tuple[str, int], Path] = {}
    for path in files(folder):
        header = read_transcript(path).header
        out[(str(header["study"]["cell"]), int(header["seed"]))] = path
    return out


def test_a_rerun_with_games_in_flight_adds_no_game(tmp_path: Path) -> None:
    path = study_file(tmp_path, per_cell=2)
    run(path, "--games-in-flight", "4")
    again = run(path, "--games-in-flight", "4")
    assert again["already_played"] == 4 and again["played_now"] == 0
    assert len(files(tmp_path)) == 4


def test_the_study_cost_cap_holds_with_games_in_flight(tmp_path: Path) -> None:
    """The study's Budget, with each game said to cost $0.40 and a $1 cap: once
    one game has finished, the games running plus the next would pass the cap."""
    study = load_study(study_file(tmp_path, per_cell=6))
    planned = plan_run(study)
    budget = Budget({}, cap=1.0)
    seen: list[GameResult] = []

    def record(result: GameResult) -> None:
        seen.append(result)
        budget.record(dataclasses.replace(result, cost=0.4))

    batch = run_batch(planned.todo, 1, record, budget.admit, budget.halt, in_flight=3)
    assert batch.stopped is not None and "cost cap" in batch.stopped
    assert 1 <= len(seen) <= 1 + 3 < len(planned.todo)  # the first, and those in flight then
    assert len(files(tmp_path)) == len(seen)
