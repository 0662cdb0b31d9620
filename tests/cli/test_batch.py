"""``sandbox batch``: many independent games, serial or in worker processes.

Worker processes are spawned, so they only know the built-in variants: the
batches here play baseline Killer (a game takes well under a second).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.batch.policy import uses_local_model, worker_count
from sandbox.batch.run import BatchResult, GameResult, jobs_for, run_batch
from sandbox.cli.main import app
from sandbox.core.game import Game
from sandbox.session.gamefile import load_config, parse_config
from sandbox.transcript import read_transcript
from tests.cli.conftest import ToyFile

KILLER = """variant = "killer"
{seed_line}
[rules]
players = 11

[default_agent]
kind = "baseline"

[run]
out = "{out}"
{extra}
"""

# Seat 1 ignores every request but a police check, and checks itself (a seat
# of the game, so the file is valid, but never one the police may check): the
# game raises ScriptError exactly when seat 1 is dealt a police card.
BROKEN_POLICE_SEAT = """
[[agent]]
kind = "scripted"
seats = [1]
skip_unlisted = true
decisions = [{ decision = "check_opinion", suspect = 1 }]
"""


def killer_file(
    tmp_path: Path, seed: int | None = 11, extra: str = "", name: str = "k.toml"
) -> Path:
    seed_line = f"seed = {seed}" if seed is not None else ""
    path = tmp_path / name
    out = tmp_path / "out"
    path.write_text(KILLER.format(seed_line=seed_line, out=out, extra=extra), encoding="utf-8")
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def batch_json(config: Path, *extra: str, code: int = 0) -> dict[str, Any]:
    result = invoke("batch", str(config), "--json", *extra)
    assert result.exit_code == code, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)  # exactly one JSON document
    return obj


def event_lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [x for x in lines if x["type"] == "event"]


def by_seed(obj: dict[str, Any]) -> dict[int, Path]:
    paths = [Path(p) for p in obj["transcripts"]]
    return {int(read_transcript(p).header["seed"]): p for p in paths}


# ------------------------------------------------------------ parallel play


def test_parallel_batch_writes_every_game_and_equals_a_serial_one(tmp_path: Path) -> None:
    config = killer_file(tmp_path)
    parallel = batch_json(config, "--games", "6", "--jobs", "2", "--out", str(tmp_path / "p"))
    serial = batch_json(config, "--games", "6", "--out", str(tmp_path / "s"))
    assert parallel["seeds"] == list(range(11, 17))  # the file's seed comes first
    assert len(list((tmp_path / "p").glob("*.jsonl"))) == 6
    assert parallel["finished"] == 6 and parallel["failed"] == []
    in_parallel, in_serial = by_seed(parallel), by_seed(serial)
    assert sorted(in_parallel) == parallel["seeds"]
    assert list(in_parallel.values()) == [Path(p) for p in parallel["transcripts"]]  # by seed
    for seed in parallel["seeds"]:
        assert event_lines(in_parallel[seed]) == event_lines(in_serial[seed])
    assert parallel["stats"] == serial["stats"]
    assert parallel["games"] == [
        {**game, "transcript": str(in_parallel[game["seed"]])} for game in serial["games"]
    ]


def test_each_game_entry_describes_its_own_transcript(tmp_path: Path) -> None:
    obj = batch_json(killer_file(tmp_path), "--games", "4", "--jobs", "2", "--seed", "30")
    assert [g["seed"] for g in obj["games"]] == [30, 31, 32, 33]
    for game in obj["games"]:
        transcript = read_transcript(Path(game["transcript"]))
        assert transcript.header["seed"] == game["seed"] and game["error"] is None
        assert transcript.outcome is not None
        assert game["reason"] == transcript.outcome["reason"]
        roles, results = transcript.header["roles"], transcript.outcome["results"]
        winners = sorted({roles[s] for s, r in results.items() if r == "win"})
        assert game["winners"] == winners


def test_json_summary_counts_the_written_transcripts(tmp_path: Path) -> None:
    obj = batch_json(killer_file(tmp_path), "--games", "5", "--jobs", "2", "--seed", "40")
    figures = obj["stats"]["killer"]
    outcomes = [read_transcript(Path(p)).outcome for p in obj["transcripts"]]
    assert figures["games"] == 5 and obj["seeds"] == [40, 41, 42, 43, 44]
    reasons: dict[str, int] = {}
    for outcome in outcomes:
        assert outcome is not None
        reasons[outcome["reason"]] = reasons.get(outcome["reason"], 0) + 1
    assert figures["reasons"] == reasons
    killer_wins = sum(
        1
        for p in obj["transcripts"]
        for seat, role in read_transcript(Path(p)).header["roles"].items()
        if role == "killer" and (read_transcript(Path(p)).outcome or {})["results"][seat] == "win"
    )
    assert figures["roles"]["killer"]["win"]["rate"] == round(killer_wins / 15, 4)  # 3 per game
    # the same figures as `sandbox stats` over the same files
    stats = invoke("stats", *obj["transcripts"], "--json")
    assert json.loads(stats.stdout)["variants"] == obj["stats"]


def test_a_batch_game_is_the_run_game_of_its_seed(tmp_path: Path) -> None:
    config = killer_file(tmp_path)
    batch = batch_json(config, "--games", "2", "--seed", "5", "--jobs", "2")
    ran = invoke("run", str(config), "--seed", "6", "--json", "--out", str(tmp_path / "r"))
    assert ran.exit_code == 0, ran.stderr
    from_run = Path(json.loads(ran.stdout)["transcript"])
    from_batch = by_seed(batch)[6]
    assert event_lines(from_batch) == event_lines(from_run)
    assert (
        read_transcript(from_batch).header["config"] == read_transcript(from_run).header["config"]
    )


def test_seed_defaults_to_zero_without_one_in_the_file(tmp_path: Path) -> None:
    obj = batch_json(killer_file(tmp_path, seed=None), "--games", "2")
    assert obj["seeds"] == [0, 1]


def test_table_output_and_progress_off_when_quiet(tmp_path: Path) -> None:
    result = invoke("batch", str(killer_file(tmp_path)), "--games", "3", "--quiet")
    assert result.exit_code == 0, result.stderr
    assert "killer · 3 games" in result.stdout and "reasons:" in result.stdout
    assert "3 of 3 games finished" in result.stdout
    assert result.stderr == ""


# ---------------------------------------------------------------- failures


def police_at_seat_1(config: Path, seed: int) -> bool:
    loaded = load_config(config)
    return dict(Game.new(loaded.variant, loaded.game_config, seed).roles())[1] == "police"


def mixed_window(config: Path, size: int) -> int:
    """A first seed whose window holds both broken and sound games."""
    for start in range(100):
        broken = [police_at_seat_1(config, s) for s in range(start, start + size)]
        if any(broken) and not all(broken):
            return start
    raise AssertionError("no mixed window of seeds")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_failing_game_is_reported_and_the_rest_finish(tmp_path: Path, jobs: str) -> None:
    config = killer_file(tmp_path, extra=BROKEN_POLICE_SEAT)
    start = mixed_window(config, 5)
    seeds = range(start, start + 5)
    broken = [s for s in seeds if police_at_seat_1(config, s)]
    result = invoke(
        "batch", str(config), "--games", "5", "--seed", str(start), "--jobs", jobs, "--json"
    )
    assert result.exit_code == 1
    obj = json.loads(result.stdout)
    assert [f["seed"] for f in obj["failed"]] == broken
    assert all("ScriptError" in f["error"] and "\n" not in f["error"] for f in obj["failed"])
    assert sorted(by_seed(obj)) == [s for s in seeds if s not in broken]
    assert obj["stats"]["killer"]["games"] == 5 - len(broken)
    for seed in broken:
        assert f"game seed {seed} failed: ScriptError" in result.stderr
    assert f"{len(broken)} of 5 games failed." in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--games", "0"], "--games"),
        (["--games", "2", "--jobs", "-1"], "--jobs"),
        (["--games", "2", "--seed", "-3"], "--seed"),
        ([], "--games"),
    ],
)
def test_bad_options_are_one_line_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    result = invoke("batch", str(killer_file(tmp_path)), *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_bad_game_files_are_one_line_exit_2(tmp_path: Path, toy_file: ToyFile) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('variant = "killer"\n[rules]\nplayers = 4\n', encoding="utf-8")
    human = killer_file(tmp_path, extra='[[agent]]\nkind = "human"\nseats = [2]\n', name="h.toml")
    cases = [(tmp_path / "missing.toml", "no such file"), (broken, "players"), (human, "humans")]
    for config, says in cases:
        result = invoke("batch", str(config), "--games", "2")
        assert result.exit_code == 2, config
        assert result.stderr.startswith("error:") and says in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------- Ctrl-C


def test_interrupt_from_the_parent_stops_the_pool_and_keeps_finished_games(
    tmp_path: Path,
) -> None:
    loaded = load_config(killer_file(tmp_path))
    jobs = jobs_for(loaded, range(20, 28), tmp_path / "out")
    seen: list[GameResult] = []

    def stop_after_two(result: GameResult) -> None:
        seen.append(result)
        if len(seen) == 2:
            raise KeyboardInterrupt

    batch = run_batch(jobs, 2, stop_after_two)
    assert batch.interrupted
    assert 2 <= len(batch.finished) < 8
    assert [r.seed for r in batch.results] == sorted(r.seed for r in batch.results)
    for result in batch.finished:
        assert result.transcript is not None
        assert read_transcript(Path(result.transcript)).outcome is not None


def test_ctrl_c_mid_game_says_how_many_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbox.session import play_game as real_play

    def interrupted_at_seed_3(loaded: Any, seed: int, out: Path, **kw: Any) -> Any:
        if seed == 3:
            raise KeyboardInterrupt
        return real_play(loaded, seed, out, **kw)

    monkeypatch.setattr("sandbox.batch.run.play_game", interrupted_at_seed_3)
    result = invoke("batch", str(killer_file(tmp_path, seed=1)), "--games", "5", "--quiet")
    assert result.exit_code == 130
    assert "interrupted: 2 of 5 games finished." in result.stderr
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 2


# ------------------------------------------------------ re-runs and resume


def test_running_a_batch_again_plays_only_what_is_missing(tmp_path: Path) -> None:
    config = killer_file(tmp_path)
    first = batch_json(config, "--games", "3", "--seed", "60")
    again = batch_json(config, "--games", "5", "--seed", "60", "--jobs", "2")
    assert again["already_played"] == 3 and again["finished"] == 5
    assert [g["seed"] for g in again["games"]] == [63, 64]  # only the new seeds were played
    assert sorted(again["transcripts"][:3]) == sorted(first["transcripts"])
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 5
    assert again["stats"]["killer"]["games"] == 5
    stats = json.loads(invoke("stats", str(tmp_path / "out"), "--json").stdout)
    assert stats["variants"]["killer"]["games"] == 5  # each game once


def test_a_different_game_file_in_the_same_folder_is_a_different_batch(tmp_path: Path) -> None:
    batch_json(killer_file(tmp_path), "--games", "2", "--seed", "60")
    other = killer_file(tmp_path, extra='[[agent]]\nkind = "random"\nseats = [1]\n', name="o.toml")
    again = batch_json(other, "--games", "2", "--seed", "60")
    assert again["already_played"] == 0 and len(again["games"]) == 2


def test_an_interrupted_batch_game_is_finished_from_its_transcript(tmp_path: Path) -> None:
    config = killer_file(tmp_path)
    first = batch_json(config, "--games", "2", "--seed", "70")
    victim = Path(first["transcripts"][1])
    lines = victim.read_text().splitlines()
    victim.write_text("\n".join(lines[: len(lines) // 2]) + "\n")  # no outcome line
    again = batch_json(config, "--games", "2", "--seed", "70")
    assert again["already_played"] == 1
    assert [(g["seed"], g["resumed"]) for g in again["games"]] == [(71, True)]
    assert again["games"][0]["transcript"] == str(victim)
    assert read_transcript(victim).outcome is not None
    assert len(list((tmp_path / "out").glob("*.jsonl"))) == 2


def test_ctrl_c_hands_no_queued_game_to_the_pool(tmp_path: Path) -> None:
    loaded = load_config(killer_file(tmp_path))
    jobs = jobs_for(loaded, range(80, 90), tmp_path / "out")

    def stop_at_once(result: GameResult) -> None:
        raise KeyboardInterrupt

    batch = run_batch(jobs, 2, stop_at_once)
    assert batch.interrupted
    # at most the two games in flight when the first result came back ever started
    assert len(list((tmp_path / "out").glob("*.jsonl"))) <= 2


# ------------------------------------------------------------------ helpers


def test_local_models_are_detected_and_jobs_zero_means_every_cpu() -> None:
    local = parse_config(
        {"variant": "killer", "default_agent": {"kind": "llm", "model": "local/smollm2"}}
    )
    remote = parse_config(
        {"variant": "killer", "agent": [{"kind": "llm", "model": "fake/x", "seats": [1]}]}
    )
    assert uses_local_model(local) and not uses_local_model(remote)
    assert worker_count(0) >= 1 and worker_count(3) == 3


def test_a_local_model_batch_plays_with_one_job_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = '[[agent]]\nkind = "llm"\nmodel = "local/smollm2"\nseats = [3]\n'
    asked: list[int] = []

    def no_games(
        jobs: Any, workers: int, on_result: Any, admit: Any, halt: Any, in_flight: int = 1
    ) -> BatchResult:
        asked.append(workers * in_flight)  # the model itself is not started here
        return BatchResult()

    monkeypatch.setattr("sandbox.batch.backends.local.run_batch", no_games)
    result = invoke("batch", str(killer_file(tmp_path, extra=local)), "--games", "4", "--jobs", "2")
    assert asked == [1]
    assert "note:" in result.stderr and "--jobs 1" in result.stderr
    sound = invoke(
        "batch", str(killer_file(tmp_path, name="b.toml")), "--games", "4", "--jobs", "2"
    )
    assert sound.exit_code == 0 and asked == [1, 2] and "note:" not in sound.stderr
