"""Several games in flight per worker process (``--games-in-flight``): the
same games as one at a time, and resume, skip, Ctrl-C, limits, the cost cap and
progress still hold."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.batch.policy import LLM_GAMES_IN_FLIGHT, agent_specs, in_flight_for
from sandbox.batch.run import GameJob, GameResult, jobs_for, run_batch
from sandbox.cli.main import app
from sandbox.session.gamefile import load_config, parse_config
from sandbox.transcript import read_transcript
from tests.batch.helpers import bots_file, by_seed, comparable, fake_file


def batch_json(config: Path, *extra: str, code: int = 0) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["batch", str(config), "--json", *extra])
    assert result.exit_code == code, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


def same_games(first: Path, second: Path) -> None:
    a, b = by_seed(first), by_seed(second)
    assert sorted(a) == sorted(b) and a
    for seed in a:
        assert comparable(a[seed]) == comparable(b[seed]), f"seed {seed} differs"


# ------------------------------------------------------------ determinism


def test_bot_games_in_flight_equal_one_at_a_time(tmp_path: Path) -> None:
    one = batch_json(bots_file(tmp_path / "a"), "--games", "6")
    many = batch_json(
        bots_file(tmp_path / "b"), "--games", "6", "--jobs", "2", "--games-in-flight", "3"
    )
    assert [g["seed"] for g in one["games"]] == [g["seed"] for g in many["games"]]
    assert [g["winners"] for g in one["games"]] == [g["winners"] for g in many["games"]]
    assert one["stats"] == many["stats"]
    same_games(tmp_path / "a" / "out", tmp_path / "b" / "out")


def test_fake_provider_games_in_flight_equal_one_at_a_time(tmp_path: Path) -> None:
    one = batch_json(fake_file(tmp_path / "a"), "--games", "3", "--games-in-flight", "1")
    many = batch_json(fake_file(tmp_path / "b"), "--games", "3", "--games-in-flight", "3")
    assert [(g["seed"], g["reason"], g["winners"]) for g in one["games"]] == [
        (g["seed"], g["reason"], g["winners"]) for g in many["games"]
    ]
    same_games(tmp_path / "a" / "out", tmp_path / "b" / "out")


# --------------------------------------------------------------- defaults


def test_defaults_bots_one_llm_many_local_and_human_one() -> None:
    bots = parse_config({"variant": "killer", "default_agent": {"kind": "baseline"}})
    fake = parse_config({"variant": "killer", "default_agent": {"kind": "llm", "model": "fake/x"}})
    local = parse_config(
        {"variant": "killer", "default_agent": {"kind": "llm", "model": "local/smollm2"}}
    )
    human = parse_config({"variant": "killer", "agent": [{"kind": "human", "seats": [1]}]})
    assert in_flight_for(agent_specs(bots), None) == 1
    assert in_flight_for(agent_specs(fake), None) == LLM_GAMES_IN_FLIGHT > 1
    assert in_flight_for(agent_specs(fake), 5) == 5
    assert in_flight_for(agent_specs(local), 8) == 1
    assert in_flight_for(agent_specs(human), 8) == 1
    # Ray follows the same policy (its workers are async actors, ray_worker.py)
    assert in_flight_for(agent_specs(fake), None, backend="ray") == LLM_GAMES_IN_FLIGHT
    assert in_flight_for(agent_specs(fake), 4, backend="ray") == 4
    assert in_flight_for(agent_specs(local), 8, backend="ray") == 1


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_bad_games_in_flight_is_exit_2(tmp_path: Path, value: str) -> None:
    result = CliRunner().invoke(
        app, ["batch", str(bots_file(tmp_path)), "--games", "2", "--games-in-flight", value]
    )
    assert result.exit_code == 2 and "Traceback" not in result.output


# ------------------------------------------------------- resume and skip


def test_rerun_with_games_in_flight_plays_only_what_is_missing(tmp_path: Path) -> None:
    config = bots_file(tmp_path)
    first = batch_json(config, "--games", "3", "--games-in-flight", "2")
    again = batch_json(config, "--games", "7", "--jobs", "2", "--games-in-flight", "3")
    assert again["already_played"] == 3 and again["finished"] == 7
    assert [g["seed"] for g in again["games"]] == [14, 15, 16, 17]
    assert sorted(again["transcripts"][:3]) == sorted(first["transcripts"])
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 7
    assert again["stats"]["killer"]["games"] == 7  # each game counted once


def test_interrupted_games_are_finished_in_flight_and_equal_clean_ones(tmp_path: Path) -> None:
    config = bots_file(tmp_path)
    batch_json(config, "--games", "4", "--games-in-flight", "4")
    for path in by_seed(tmp_path / "out").values():  # cut every game in half
        lines = path.read_text().splitlines()
        path.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    again = batch_json(config, "--games", "4", "--games-in-flight", "4")
    assert [g["resumed"] for g in again["games"]] == [True] * 4
    clean = batch_json(bots_file(tmp_path / "clean"), "--games", "4")
    assert clean["finished"] == 4
    same_games(tmp_path / "out", tmp_path / "clean" / "out")


# ----------------------------------------------------------------- Ctrl-C


def test_ctrl_c_with_games_in_flight_starts_nothing_new_and_resumes(tmp_path: Path) -> None:
    loaded = load_config(fake_file(tmp_path))
    jobs = jobs_for(loaded, range(3, 9), tmp_path / "out")

    def stop_at_once(result: GameResult) -> None:
        raise KeyboardInterrupt

    batch = run_batch(jobs, 1, stop_at_once, in_flight=3)
    assert batch.interrupted
    files = list((tmp_path / "out").glob("*.jsonl"))
    assert 1 <= len(files) <= 3  # only the games in flight when the first result came
    assert len(batch.cut_short) >= 1 and len(batch.finished) >= 1
    for cut in batch.cut_short:
        assert cut.transcript is not None and read_transcript(Path(cut.transcript)).outcome is None
    again = batch_json(fake_file(tmp_path), "--games", "6", "--games-in-flight", "6")
    assert again["finished"] == 6
    assert sum(g["resumed"] for g in again["games"]) == len(batch.cut_short)
    batch_json(fake_file(tmp_path / "clean"), "--games", "6", "--games-in-flight", "6")
    same_games(tmp_path / "out", tmp_path / "clean" / "out")


# ----------------------------------------- limits, cost cap and progress


def test_provider_limits_hold_across_the_games_in_flight(tmp_path: Path) -> None:
    loaded = load_config(bots_file(tmp_path))
    jobs = [
        dataclasses.replace(job, providers=("openai",) if job.seed % 2 else ("anthropic",))
        for job in jobs_for(loaded, range(20, 28), tmp_path / "out")
    ]
    peaks: list[int] = []

    def admit(job: GameJob, running: Sequence[GameJob]) -> bool:
        busy = sum(1 for j in running if j.providers == job.providers)
        peaks.append(busy + 1)
        return busy < 1  # one game per provider at a time

    batch = run_batch(jobs, 2, lambda r: None, admit=admit, in_flight=4)
    assert len(batch.finished) == 8
    assert max(p for p in peaks if p <= 1) == 1  # admitted only when nothing else ran
    assert any(p > 1 for p in peaks)  # and held back at least once


def test_cost_cap_stops_new_games_with_games_in_flight(tmp_path: Path) -> None:
    loaded = load_config(bots_file(tmp_path))
    jobs = jobs_for(loaded, range(40, 60), tmp_path / "out")
    results: list[GameResult] = []

    def halt(running: Sequence[GameJob]) -> str | None:
        return "cap reached" if len(results) >= 2 else None

    batch = run_batch(jobs, 1, results.append, halt=halt, in_flight=3)
    assert batch.stopped == "cap reached" and not batch.interrupted
    # once two games had finished no game started: at most the 3 in flight then
    assert 2 <= len(batch.results) <= 2 + 3 < 20
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == len(batch.results)


def test_results_arrive_one_by_one_while_games_play(tmp_path: Path) -> None:
    """Progress and ETA need each result as its game ends, not all at the end."""
    loaded = load_config(bots_file(tmp_path))
    jobs = jobs_for(loaded, range(60, 72), tmp_path / "out")
    on_disk: list[int] = []

    def on_result(result: GameResult) -> None:
        assert result.transcript is not None
        assert (
            read_transcript(Path(result.transcript)).outcome is not None
        )  # written before reported
        on_disk.append(len(list((tmp_path / "out").glob("*.jsonl"))))

    batch = run_batch(jobs, 2, on_result, in_flight=2)
    assert len(on_disk) == 12 == len(batch.finished)
    assert on_disk[0] <= 4 + 1  # the first came while at most the first games had started
