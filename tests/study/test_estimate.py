"""Cost before spending (sandbox/study/estimate.py): a sample of the plan played
on the fake provider with a price table gives calls, tokens, dollars and hours
for the whole plan with an interval, and the study then played for real costs
what the interval says (prices from the same hand-written table)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sandbox.batch.jobs import GameJob
from sandbox.cli.main import app
from sandbox.study.estimate import Figure, estimate, on_fake, sample_jobs
from sandbox.study.run import job_for, plan_run, planned_games, run_study
from sandbox.study.spec import load_study
from sandbox.transcript import read_transcript

# US$ per prompt token and per answer token: a fake price table.
PRICES = {"fake/legal-random": (2e-6, 8e-6), "fake/legal-fenced": (5e-6, 1.5e-5)}

STUDY = """name = "priced"
game = "game.toml"
schedule = "matrix"
games_per_cell = 2
seed = 7
out = "out"

[[contestant]]
name = "random"
kind = "llm"
model = "fake/legal-random"
timeout_s = 10

[[contestant]]
name = "fenced"
kind = "llm"
model = "fake/legal-fenced"
timeout_s = 10

[[contestant]]
name = "bot"
kind = "baseline"
"""

GAME = """variant = "killer"
[rules]
players = 11
day_limit = 2                 # KG-12: short games keep the test quick
[default_agent]
kind = "baseline"
[llm]
max_repairs = 1
"""


def price(model: str) -> tuple[float, float]:
    return PRICES.get(model, (0.0, 0.0))


def study_path(tmp_path: Path) -> Path:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    path = tmp_path / "priced.toml"
    path.write_text(STUDY, encoding="utf-8")
    return path


def real_cost(out: Path) -> tuple[float, int]:
    """What the played study cost at the table's prices, and its calls: each
    call line priced at its seat's model as the header records it."""
    dollars, calls = 0.0, 0
    for path in out.glob("*.jsonl"):
        transcript = read_transcript(path)
        models = {int(s): str(a.get("model", "")) for s, a in transcript.header["agents"].items()}
        for call in transcript.calls:
            p_in, p_out = price(models[int(call["seat"])])
            dollars += int(call["tokens_in"]) * p_in + int(call["tokens_out"]) * p_out
            calls += 1
    return dollars, calls


def inside(value: float, figure: Figure) -> bool:
    return figure.low <= value <= figure.high


def test_the_estimate_holds_what_the_study_then_costs(tmp_path: Path) -> None:
    study = load_study(study_path(tmp_path))
    jobs = [job_for(study, game, study.out()) for game in planned_games(study)]
    assert len(jobs) == 12  # 6 cells (ordered pairs) × 2 games
    est = estimate(jobs, len(jobs), 2, sample=4, prices=price)
    assert len(est.sampled) == 4 and est.failed == 0
    assert not list(study.out().glob("*.jsonl"))  # the estimate keeps no transcript
    assert est.dollars.low < est.dollars.value < est.dollars.high  # a real interval
    planned = plan_run(study)
    result = run_study(study, planned, lambda r: None)
    assert len(result.finished) == 12
    dollars, calls = real_cost(study.out())
    assert dollars > 0
    assert inside(dollars, est.dollars), (dollars, est.dollars)
    assert inside(calls, est.calls), (calls, est.calls)


def test_the_sample_is_spread_over_the_plan() -> None:
    jobs = [GameJob({}, seed, "out") for seed in range(10)]
    assert [j.seed for j in sample_jobs(jobs, 3)] == [0, 3, 6]
    assert [j.seed for j in sample_jobs(jobs, 20)] == list(range(10))


def test_a_real_model_seat_plays_on_the_fake_with_its_own_prompt_settings(tmp_path: Path) -> None:
    raw = {
        "variant": "killer",
        "default_agent": {"kind": "llm", "model": "openai/gpt-4o", "api_key_env": "MY_KEY"},
        "agent": [
            {"kind": "llm", "model": "fake/reactive", "seats": [1]},
            {"kind": "llm", "model": "openai/gpt-4o", "structured": "none", "seats": [2]},
            {"kind": "baseline", "seats": [3]},
        ],
    }
    moved = on_fake(GameJob(raw, 1, "out"), "http://127.0.0.1:9/v1", tmp_path)
    default = moved.raw_config["default_agent"]
    assert default["model"] == "fake/legal-random" and "api_key_env" not in default
    assert default["api_base"] == "http://127.0.0.1:9/v1"
    # what gpt-4o's prompt would carry: a JSON schema, and its window
    assert default["structured"] == "json_schema" and default["context_window"] >= 100_000
    fake, chosen, bot = moved.raw_config["agent"]
    assert fake["model"] == "fake/reactive"  # a fake policy plays as itself
    assert chosen["structured"] == "none"  # the game file's own choice is kept
    assert bot == {"kind": "baseline", "seats": [3]}
    assert moved.out == str(tmp_path) and raw["default_agent"]["model"] == "openai/gpt-4o"


def test_study_estimate_prints_the_plan_and_plays_nothing(tmp_path: Path) -> None:
    path = study_path(tmp_path)
    result = CliRunner().invoke(app, ["study", str(path), "--estimate", "--json"])
    assert result.exit_code == 0, result.stderr
    obj = json.loads(result.stdout)["estimate"]
    assert obj["games"] == 12 and obj["sampled"] == 6
    assert obj["calls"]["low"] <= obj["calls"]["value"] <= obj["calls"]["high"]
    assert obj["dollars"]["value"] == 0.0  # fake models cost nothing in litellm's table
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.jsonl"))
    text = CliRunner().invoke(app, ["study", str(path), "--estimate"])
    assert text.exit_code == 0, text.stderr
    assert text.stdout.startswith("estimate for 12 games, from 6 played on the fake provider")
    assert "hours" in text.stdout and "dollars" in text.stdout


def test_a_batch_sampled_whole_is_estimated_exactly(tmp_path: Path) -> None:
    """When every game of the plan is sampled the point estimate is the plan's own
    total: the games the batch then plays make exactly those calls."""
    game = tmp_path / "game.toml"
    game.write_text(
        GAME.replace('kind = "baseline"', 'kind = "llm"\nmodel = "fake/legal-random"')
        + f'[run]\nout = "{tmp_path / "out"}"\n',
        encoding="utf-8",
    )
    asked = CliRunner().invoke(app, ["batch", str(game), "--games", "3", "--estimate", "--json"])
    assert asked.exit_code == 0, asked.stderr
    est = json.loads(asked.stdout)["estimate"]
    assert est["games"] == 3 and est["sampled"] == 3
    assert not list((tmp_path / "out").glob("*.jsonl"))  # nothing played for real yet
    played = CliRunner().invoke(app, ["batch", str(game), "--games", "3", "--json"])
    assert played.exit_code == 0, played.stderr
    calls = sum(len(read_transcript(p).calls) for p in (tmp_path / "out").glob("*.jsonl"))
    assert round(est["calls"]["value"]) == calls
    big = CliRunner().invoke(app, ["batch", str(game), "--games", "300", "--estimate", "--json"])
    assert json.loads(big.stdout)["estimate"]["sampled"] == 6
