"""``sandbox export --format trajectories``: training data from a batch of
games, one row per decision and one per game, with rewards that add up with
the outcomes (sandbox.analysis.trajectories)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.adapters.step import SteppedGame
from sandbox.analysis.trajectories import trajectory_rows
from sandbox.batch.run import jobs_for, run_batch
from sandbox.cli.main import app
from sandbox.session.gamefile import parse_config
from sandbox.transcript import read_game, read_transcript

GAMES = 20
REWARD = {"win": 1.0, "draw": 0.0, "lose": -1.0}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 20-game batch: bots, one fake model that answers legally and one that
    answers out of range (its repairs and fallbacks)."""
    out = tmp_path_factory.mktemp("batch")
    loaded = parse_config(
        {
            "variant": "killer",
            "rules": {"players": 11},
            "default_agent": {"kind": "baseline"},
            "agent": [
                {"seats": [1], "kind": "llm", "model": "fake/legal-random"},
                {"seats": [2], "kind": "llm", "model": "fake/illegal"},
            ],
            "llm": {"max_repairs": 1},
        }
    )
    result = run_batch(jobs_for(loaded, list(range(1, GAMES + 1)), out), 1, lambda r: None)
    assert len(result.results) == GAMES
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_batch_exports_one_row_per_decision_and_rewards_that_add_up(
    batch: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    done = CliRunner().invoke(
        app, ["export", str(batch), "--format", "trajectories", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    decisions = read_jsonl(out / "trajectories.jsonl")
    games = read_jsonl(out / "trajectory_games.jsonl")
    transcripts = [read_transcript(p) for p in sorted(batch.glob("*.jsonl"))]
    assert len(games) == len(transcripts) == GAMES
    made = [(str(t.header["seed"]), e) for t in transcripts for e in t.events]
    recorded = [e for _, e in made if e.kind == "core.decision"]
    assert len(decisions) == len(recorded)  # one row per decision, no more
    assert Counter(r["request_id"] for r in decisions) == Counter(
        e.request_id  # type: ignore[attr-defined]
        for e in recorded
    )
    by_game = {g["game_id"]: g for g in games}
    for game in games:
        results = json.loads(game["results"])
        rewards = json.loads(game["rewards"])
        assert rewards == {s: REWARD[r] for s, r in results.items()}
        roles = json.loads(game["roles"])
        assert set(roles) == set(results) and len(roles) == 11
        assert game["decisions"] == sum(1 for r in decisions if r["game_id"] == game["game_id"])
        # a side's seats share their result: the rewards sum to wins - losses
        wins = sum(1 for r in results.values() if r == "win")
        losses = sum(1 for r in results.values() if r == "lose")
        assert sum(rewards.values()) == wins - losses
    for row in decisions:
        game = by_game[row["game_id"]]
        assert row["reward"] == json.loads(game["rewards"])[str(row["seat"])]
        assert row["role"] == json.loads(game["roles"])[str(row["seat"])]
        assert row["observation"] and "# Your decision" in row["observation"]
        assert row["valid"] == (row["fallback_reason"] == "")
    illegal = [r for r in decisions if r["seat"] == 2]
    assert any(r["repairs"] == 1 for r in illegal)
    assert all(r["referee_error"] for r in illegal if r["repairs"])
    assert any(not r["valid"] and r["fallback_reason"] == "invalid" for r in illegal)


def test_parquet_holds_the_same_rows(batch: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    out = tmp_path / "pq"
    done = CliRunner().invoke(
        app, ["export", str(batch), "--format", "trajectories-parquet", "--out", str(out)]
    )
    assert done.exit_code == 0, done.output
    frame = pd.read_parquet(out / "trajectories.parquet")
    transcripts = [read_transcript(p) for p in sorted(batch.glob("*.jsonl"))]
    assert len(frame) == sum(1 for t in transcripts for e in t.events if e.kind == "core.decision")
    games = pd.read_parquet(out / "trajectory_games.parquet")
    assert len(games) == GAMES
    # a training loop's usual first step: the mean reward per side
    assert set(frame.groupby("side")["reward"].mean().index) <= {"killer", "police", "civilian"}


def test_an_unknown_format_is_one_error_line(batch: Path, tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["export", str(batch), "--format", "trajectory"])
    assert done.exit_code != 0
    assert "error: --format: 'trajectory' is not a format here" in done.output
    assert "Traceback" not in done.output


def test_the_observation_of_a_bot_is_the_prompt_the_stepped_seat_was_shown(
    tmp_path: Path,
) -> None:
    """Seats that called no model get the prompt rendered again from the
    rebuilt game: the very text the stepping interface showed at the time."""
    shown: dict[str, str] = {}
    with SteppedGame("werewolf", external=[3], transcript=tmp_path) as game:
        game.reset(seed=7)
        while not game.over:
            obs = game.observation()
            shown[obs["request"]["id"]] = obs["prompt"]["system"] + "\n\n" + obs["prompt"]["user"]
            game.step(obs["moves"][-1])
        path = game.transcript_path
    assert path is not None and shown
    rows, row = trajectory_rows(read_game(path))
    mine = {r["request_id"]: r["observation"] for r in rows if r["seat"] == 3}
    assert mine == shown
    assert row["decisions"] == len(rows)
