"""``sandbox study``: headers, resume, no double counting, Ctrl-C, limits, cost cap.

Contestants here are the baseline bot and the random seat (a game takes well
under a second); one test runs fake-provider LLM contestants.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.batch.run import GameJob, GameResult
from sandbox.cli.main import app
from sandbox.study.run import Budget
from sandbox.transcript import read_transcript

STUDY = """name = "{name}"
game = "game.toml"
schedule = "{schedule}"
games_per_cell = {per_cell}
seed = 3
jobs = {jobs}
out = "out"

[[contestant]]
name = "bot"
kind = "baseline"

[[contestant]]
name = "dice"
kind = "random"
{extra}
"""

GAME = """variant = "killer"
name = "k11"
[rules]
players = 11
"""


def study_file(
    tmp_path: Path,
    name: str = "s1",
    schedule: str = "matrix",
    per_cell: int = 2,
    jobs: int = 1,
    extra: str = "",
) -> Path:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    path = tmp_path / f"{name}.toml"
    text = STUDY.format(name=name, schedule=schedule, per_cell=per_cell, jobs=jobs, extra=extra)
    path.write_text(text, encoding="utf-8")
    return path


def run(path: Path, *extra: str, code: int = 0) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["study", str(path), "--json", *extra])
    assert result.exit_code == code, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


def files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "out").glob("*.jsonl"))


def test_a_study_plays_every_cell_and_records_who_sat_where(tmp_path: Path) -> None:
    obj = run(study_file(tmp_path))
    assert obj["planned"] == 4 and obj["finished"] == 4 and obj["played_now"] == 4
    assert set(obj["ratings"]) == {"bot", "dice"}
    assert set(obj["ratings_by_role"]) == {"bot@killer", "bot@police", "dice@killer", "dice@police"}
    assert obj["win_rates"]["bot"]["killer"]["games"] == 2
    assert obj["head_to_head"]["bot"]["dice"]["meetings"] == 4
    assert "vote_accuracy" in obj["metrics"]["killer"]
    cells = set()
    for path in files(tmp_path):
        transcript = read_transcript(path)
        header = transcript.header
        study = header["study"]
        assert study["name"] == "s1"
        cells.add((study["cell"], header["seed"]))
        for seat, role in header["roles"].items():
            side = "killer" if role == "killer" else "police"
            assert header["contestants"][seat] == study["sides"][side]
            expected = "baseline" if study["sides"][side] == "bot" else "random"
            assert header["agents"][seat]["kind"] == expected
    assert cells == {
        ("killer=bot,police=dice", 3),
        ("killer=bot,police=dice", 4),
        ("killer=dice,police=bot", 3),
        ("killer=dice,police=bot", 4),
    }


def test_running_twice_adds_no_game(tmp_path: Path) -> None:
    path = study_file(tmp_path)
    first = run(path)
    again = run(path)
    assert again["played_now"] == 0 and again["already_played"] == 4
    assert again["finished"] == 4 and len(files(tmp_path)) == 4
    assert again["ratings"] == first["ratings"] and again["win_rates"] == first["win_rates"]


def test_a_contestant_changed_between_runs_is_one_line_and_plays_nothing(
    tmp_path: Path,
) -> None:
    # A study file edited in place (the bot now a level-4 reference) must not count
    # the old bot's games as the new one's: one error line, nothing played or lost.
    path = study_file(tmp_path)
    run(path)
    before = {p.name: p.read_bytes() for p in files(tmp_path)}
    edited = path.read_text().replace('kind = "baseline"', 'kind = "baseline"\nlevel = 4', 1)
    path.write_text(edited, encoding="utf-8")
    result = CliRunner().invoke(app, ["study", str(path)])
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith("error:") and len(result.stderr.strip().splitlines()) == 1
    assert "contestant(s) bot " in result.stderr and "--out" in result.stderr
    assert {p.name: p.read_bytes() for p in files(tmp_path)} == before
    # into a new folder the edited study plays all its games
    fresh = run(path, "--out", str(tmp_path / "elsewhere"))
    assert fresh["played_now"] == 4


def test_an_interrupted_game_is_finished_from_its_transcript(tmp_path: Path) -> None:
    path = study_file(tmp_path)
    run(path)
    victim = files(tmp_path)[0]
    lines = victim.read_text().splitlines()
    events = [
        i for i, line in enumerate(lines) if '"type": "event"' in line or '"type":"event"' in line
    ]
    cut = lines[: events[len(events) // 2]]  # half the game, no outcome line
    victim.write_text("\n".join(cut) + "\n" + lines[events[len(events) // 2]][:20])  # torn tail
    obj = run(path)
    assert obj["resumed_now"] == 1 and obj["played_now"] == 0 and obj["already_played"] == 3
    assert obj["finished"] == 4 and len(files(tmp_path)) == 4
    assert read_transcript(victim).outcome is not None


def test_ctrl_c_starts_no_new_game_and_a_rerun_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbox.session import play_game as real_play

    played: list[int] = []

    def stop_at_third(loaded: Any, seed: int, out: Path, **kw: Any) -> Any:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(seed)
        return real_play(loaded, seed, out, **kw)

    path = study_file(tmp_path)
    monkeypatch.setattr("sandbox.batch.run.play_game", stop_at_third)
    result = CliRunner().invoke(app, ["study", str(path), "--json"])
    assert result.exit_code == 130
    assert json.loads(result.stdout)["finished"] == 2 and len(played) == 2
    assert len(files(tmp_path)) == 2
    monkeypatch.undo()
    obj = run(path)
    assert obj["played_now"] == 2 and obj["already_played"] == 2 and obj["finished"] == 4
    assert len(files(tmp_path)) == 4


def test_copies_of_a_game_count_once(tmp_path: Path) -> None:
    path = study_file(tmp_path)
    run(path)
    first = files(tmp_path)[0]
    (tmp_path / "out" / "copy").mkdir()
    (tmp_path / "out" / "copy" / first.name).write_text(first.read_text())
    obj = run(path)
    assert obj["finished"] == 4 and obj["played_now"] == 0
    stats = CliRunner().invoke(app, ["stats", str(tmp_path / "out"), "--json"])
    figures = json.loads(stats.stdout)["variants"]["killer"]
    assert figures["games"] == 4 and figures["duplicates"] == 1


def test_parallel_study_equals_serial(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    serial = run(study_file(tmp_path / "a", per_cell=1))
    parallel = run(study_file(tmp_path / "b", per_cell=1, jobs=2))
    assert parallel["ratings"] == serial["ratings"]
    assert parallel["win_rates"] == serial["win_rates"]


def job(*providers: str) -> GameJob:
    return GameJob({}, 0, "", providers=providers)


def test_provider_limits_hold_back_jobs_of_a_busy_provider() -> None:
    budget = Budget({"openai": 1}, None)
    running = [job("openai")]
    assert not budget.admit(job("openai", "fake"), running)
    assert budget.admit(job("fake"), running)
    assert budget.admit(job("openai"), [job("fake")])


def test_cost_cap_stops_when_spent_plus_projected_would_pass_it() -> None:
    budget = Budget({}, cap=1.0)
    assert budget.halt([]) is None  # nothing known yet
    budget.record(GameResult(0, "x", cost=0.4))
    assert budget.halt([]) is None  # 0.4 spent + 0.4 for the next game
    assert budget.halt([job()]) is not None  # 0.4 + 0.4 × (1 running + 1 next) > 1.0
    budget.record(GameResult(1, "y", cost=0.4))
    reason = budget.halt([])
    assert reason is not None and "cost cap" in reason


def test_bad_study_files_are_one_line_exit_2(tmp_path: Path) -> None:
    cases = {
        "twice": (STUDY.replace('name = "dice"', 'name = "bot"'), "unique"),
        "human": (STUDY + '\n[[contestant]]\nname = "me"\nkind = "human"\n', "humans"),
        "seats": (STUDY + '\n[[contestant]]\nname = "x"\nkind = "random"\nseats = [1]\n', "seats"),
        "llm": (STUDY + '\n[[contestant]]\nname = "x"\nkind = "llm"\n', "model"),
        "key": (STUDY + "\nbogus = 1\n", "bogus"),
    }
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    for label, (text, says) in cases.items():
        path = tmp_path / f"{label}.toml"
        path.write_text(
            text.format(name=label, schedule="matrix", per_cell=1, jobs=1, extra=""),
            encoding="utf-8",
        )
        result = CliRunner().invoke(app, ["study", str(path)])
        assert result.exit_code == 2, label
        assert result.stderr.startswith("error:") and says in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    missing = CliRunner().invoke(app, ["study", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr


@pytest.mark.slow
def test_fake_provider_contestants(tmp_path: Path) -> None:
    # bot against an LLM contestant on the built-in fake provider, both sides once
    path = study_file(tmp_path, per_cell=1)
    text = path.read_text().replace(
        'name = "dice"\nkind = "random"\n',
        'name = "fakey"\nkind = "llm"\nmodel = "fake/legal-random"\n',
    )
    path.write_text(text)
    obj = run(path)
    assert obj["finished"] == 2 and set(obj["ratings"]) == {"bot", "fakey"}
    assert obj["usage"]["fakey"]["calls"] > 0 and obj["usage"]["bot"]["calls"] == 0
    assert obj["usage"]["fakey"]["latency_s_median"] is not None
    assert obj["usage"]["fakey"]["fallback_rate"] is not None
