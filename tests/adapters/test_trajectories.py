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
        results = {str(s["seat"]): s["result"] for s in game["seats"]}
        rewards = {str(s["seat"]): s["reward"] for s in game["seats"]}
        assert rewards == {s: REWARD[r] for s, r in results.items()}
        roles = {str(s["seat"]): s["role"] for s in game["seats"]}
        assert set(roles) == set(results) and len(roles) == 11
        assert game["decisions"] == sum(1 for r in decisions if r["game_id"] == game["game_id"])
        # a side's seats share their result: the rewards sum to wins - losses
        wins = sum(1 for r in results.values() if r == "win")
        losses = sum(1 for r in results.values() if r == "lose")
        assert sum(rewards.values()) == wins - losses
    for row in decisions:
        game = by_game[row["game_id"]]
        [mine] = [s for s in game["seats"] if s["seat"] == row["seat"]]
        assert row["reward"] == mine["reward"] and row["role"] == mine["role"]
        assert row["seats"] == game["seats"]  # every seat's role at the end, on each row
        assert row["observation"] and "# Your decision" in row["observation"]
        assert row["valid"] == (row["fallback_reason"] == "")
        assert row["validity"] == (1.0 if row["valid"] else 0.0)
        # the chat as the seat saw it, then its answer: TRL's conversational form
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert "\n\n".join(m["content"] for m in row["prompt"]) == row["observation"]
        assert row["messages"] == row["prompt"] + row["completion"]
        [completion] = row["completion"]
        answer = json.loads(completion["content"])
        assert next(iter(answer)) == "reasoning" and answer["reasoning"] == row["note"]
        assert {k: v for k, v in answer.items() if k != "reasoning"} == json.loads(row["answer"])
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


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second, different batch: bots only (no model call, no refusal: the
    columns an LLM batch fills are empty here)."""
    out = tmp_path_factory.mktemp("bots")
    loaded = parse_config({"variant": "werewolf", "default_agent": {"kind": "baseline"}})
    result = run_batch(jobs_for(loaded, [1, 2], out), 1, lambda r: None)
    assert len(result.results) == 2
    return out


def export_to(folder: Path, out: Path, fmt: str) -> Path:
    done = CliRunner().invoke(app, ["export", str(folder), "--format", fmt, "--out", str(out)])
    assert done.exit_code == 0, done.output
    return out


def is_chat(value: Any) -> bool:
    """TRL's conversational check of a column value: a list of records, each
    with a ``role`` and a ``content`` (docs: "Dataset formats and types")."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and set(m) >= {"role", "content"} for m in value)
    )


def check_trl_prompt_completion(batch: dict[str, list[Any]]) -> None:
    """TRL's documented contract for a conversational prompt-completion
    dataset (SFTTrainer, and the prompt of GRPO/RLOO): ``prompt`` is the
    conversation up to the answer, ``completion`` the assistant's turn; a
    ``messages`` column is the whole conversation (language modelling)."""
    for prompt, completion, messages in zip(
        batch["prompt"], batch["completion"], batch["messages"], strict=True
    ):
        assert is_chat(prompt) and is_chat(completion) and is_chat(messages)
        assert {m["role"] for m in prompt} <= {"system", "user", "assistant"}
        assert prompt[-1]["role"] == "user"
        assert [m["role"] for m in completion] == ["assistant"]
        assert all(isinstance(m["content"], str) for m in prompt + completion)
        assert messages == prompt + completion
    for reward in batch["reward"] + batch["validity"]:
        assert isinstance(reward, float)


@pytest.mark.parametrize("fmt", ["trajectories-parquet", "trajectories"])
def test_two_exports_load_together_with_hf_datasets(
    batch: Path, bots: Path, tmp_path: Path, fmt: str
) -> None:
    """One schema whatever the data: an LLM batch (refusals, notes) and a bots
    batch (none) load as one dataset, and a batch of it meets TRL's format."""
    datasets = pytest.importorskip("datasets")
    ext = "parquet" if fmt.endswith("parquet") else "json"
    suffix = "parquet" if ext == "parquet" else "jsonl"
    first = export_to(batch, tmp_path / "a", fmt) / f"trajectories.{suffix}"
    second = export_to(bots, tmp_path / "b", fmt) / f"trajectories.{suffix}"
    both = datasets.load_dataset(ext, data_files=[str(first), str(second)], split="train")
    assert len(both) == len(read_rows(first)) + len(read_rows(second))
    assert both.features["reward"].dtype == "float64"
    assert both.features["referee_error"].dtype == "string"  # null in the bots' export
    games = [
        str(tmp_path / d / f"trajectory_games.{suffix}") for d in ("a", "b")
    ]  # the game tables concatenate too
    assert len(datasets.load_dataset(ext, data_files=games, split="train")) == GAMES + 2
    check_trl_prompt_completion(both.shuffle(seed=0)[:64])
    check_trl_prompt_completion(both[-8:])  # the bots' rows, rendered prompts


def read_rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".jsonl":
        return read_jsonl(path)
    import pyarrow.parquet as pq

    return list(pq.read_table(path).to_pylist())


def test_every_accepted_completion_parses_as_its_request_asks(batch: Path, bots: Path) -> None:
    """SFT's check: each completion, read by the sandbox's own answer parser
    against its request's answer model, is the recorded decision and note."""
    from sandbox.agents.llm.answer_format import decision_model
    from sandbox.agents.llm.parse import parse_answer
    from sandbox.core.events import DecisionMade
    from sandbox.core.game import Game
    from sandbox.session.replay import game_config_of

    checked = 0
    for path in [*sorted(batch.glob("*.jsonl")), *sorted(bots.glob("*.jsonl"))]:
        rows, _ = trajectory_rows(read_game(path))
        by_request = {r["request_id"]: r for r in rows}
        transcript = read_transcript(path)
        variant, config = game_config_of(transcript)
        game = Game.new(variant, config, int(transcript.header["seed"]))
        for made in transcript.events:
            if not isinstance(made, DecisionMade):
                continue
            row = by_request[made.request_id]
            if row["valid"]:
                request = next(r for r in game.pending() if r.id == made.request_id)
                parsed = parse_answer(row["completion"][0]["content"], decision_model(request))
                recorded = json.loads(json.dumps(made.payload))  # tuples as lists
                assert {k: parsed.decision[k] for k in recorded} == recorded
                # an optional field the seat's agent left out: written empty
                filled = {k: v for k, v in parsed.decision.items() if k not in recorded}
                assert all(v in ("", [], None, "none") for v in filled.values())
                assert parsed.reasoning == made.note
                checked += 1
            if made.fallback:
                game.submit_fallback(made.request_id, made.fallback_reason, made.note)
            else:
                game.submit(made.request_id, made.payload, made.note)
    assert checked > 100
