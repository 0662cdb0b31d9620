"""The verifiers environments (``sandbox.adapters.rl.verifiers_env``), run by
verifiers' own ``vf-eval`` against the fake provider's OpenAI endpoint:
rollouts finish, rewards add up with the transcripts' outcomes, and each
rollout's transcript replays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.rl_extra import need

need("verifiers")

from sandbox.adapters.rl.episode import Episode, RewardWeights, opponent_factory  # noqa: E402
from sandbox.models.fake import FakeLLMServer  # noqa: E402
from sandbox.session.replay import replay  # noqa: E402
from sandbox.transcript import read_transcript  # noqa: E402

VF_EVAL = Path(sys.executable).with_name("vf-eval")
ENV_ID = "sandbox.adapters.rl.verifiers_env"
TABLE = {"win": 1.0, "draw": 0.0, "lose": -1.0}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=1) as server:
        yield server


def vf_eval(
    fake: FakeLLMServer, tmp: Path, model: str, games: int, **env_args: Any
) -> list[dict[str, Any]]:
    """vf-eval's own command line; the saved rollouts."""
    args = {"transcripts": str(tmp / "transcripts"), "eval_games": games, **env_args}
    command = [
        str(VF_EVAL), ENV_ID, "-a", json.dumps(args), "-m", model, "-b", fake.base_url,
        "-k", "FAKE_KEY", "-n", str(games), "-r", "1", "--disable-tui", "--save-results",
        "-o", str(tmp / "out"), "--state-columns", "sandbox",
    ]  # fmt: skip
    env = {**os.environ, "FAKE_KEY": "not-a-secret"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240, cwd=tmp)
    assert done.returncode == 0, done.stderr[-3000:]
    (results,) = (tmp / "out").rglob("results.jsonl")
    return [json.loads(line) for line in results.read_text().splitlines()]


def check_rollout(row: dict[str, Any]) -> None:
    """A finished rollout whose reward adds up with its transcript (default weights)."""
    weights = RewardWeights()
    assert row["stop_condition"] == "has_final_env_response" and not row["error"]
    summary = row["sandbox"]
    parts = summary["reward_parts"]
    expected = (
        weights.result * parts["result"]
        - weights.invalid * parts["invalid"]
        - weights.fallback * parts["fallback"]
    )
    assert row["reward"] == pytest.approx(expected)
    assert summary["reward"] == pytest.approx(row["reward"])
    path = Path(summary["transcript"])
    assert replay(path) is None
    transcript = read_transcript(path)
    assert transcript.outcome is not None
    assert summary["outcome"] == transcript.outcome["reason"]
    decisions = [e for e in transcript.events if e.kind == "core.decision"]
    seats = summary["seats"]
    # a silent seat (more than 25 % fallbacks) never gets its side's win
    results = [
        min(TABLE[s["result"]], 0.0) if s["invalid"] else TABLE[s["result"]] for s in seats.values()
    ]
    assert all(s["invalid"] == (s["fallbacks"] > 0.25 * s["decisions"]) for s in seats.values())
    assert parts["result"] == pytest.approx(sum(results) / len(results))
    for seat, tally in seats.items():
        assert tally["role"] == transcript.header["roles"][seat]
        mine = [e for e in decisions if e.seat == int(seat)]  # type: ignore[attr-defined]
        assert tally["decisions"] == len(mine)
        assert tally["fallbacks"] == sum(bool(e.fallback) for e in mine)  # type: ignore[attr-defined]
    assert row["prompt"][0]["role"] == "system" and row["completion"]


def test_vf_eval_plays_killer_seats_to_the_end_with_legal_answers(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    rows = vf_eval(fake, tmp_path, "fake-legal-random", 2, variant="killer")
    assert len(rows) == 2
    for row in rows:
        check_rollout(row)
        assert row["fallback_count"] == 0 and row["valid_answer_rate"] == 1.0


def test_a_model_that_never_answers_validly_scores_below_any_loser(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    # LLM opponents on the fake provider too; a short day limit keeps the game short
    rows = vf_eval(
        fake, tmp_path, "fake-illegal", 1, variant="four_factions", opponents="fake",
        rules={"day_limit": 2},
    )  # fmt: skip
    (row,) = rows
    check_rollout(row)
    assert row["valid_answer_rate"] == 0.0 and row["fallback_count"] > 0
    # the silent seat: its side's win (if any) is not counted as its own
    assert row["invalid_seats"] == 1.0 and row["sandbox"]["reward_parts"]["result"] <= 0.0
    assert row["reward"] < -1.0  # whatever its side's result: silence never pays


def test_self_play_takes_every_seat_of_one_side(fake: FakeLLMServer, tmp_path: Path) -> None:
    (row,) = vf_eval(
        fake, tmp_path, "fake-legal-random", 1, variant="werewolf", side="werewolves",
        rules={"day_limit": 2},
    )  # fmt: skip
    check_rollout(row)
    seats = row["sandbox"]["seats"]
    assert len(seats) > 1 and {s["side"] for s in seats.values()} == {"werewolves"}


def test_the_episode_checks_its_options_and_the_weights_move_the_reward() -> None:
    with pytest.raises(ValueError, match="the sides of werewolf"):
        Episode("werewolf", side="wolves", transcripts=None)
    with pytest.raises(ValueError, match="seat 99"):
        Episode("killer", seat=99, transcripts=None)
    with pytest.raises(ValueError, match="empty entry"):
        opponent_factory("baseline,,random")
    episode = Episode("killer", seat=3, weights=RewardWeights(2.0, 0.0, 0.0), transcripts=None)
    try:
        seat = episode.start(seed=4)
        while seat is not None:
            assert seat == 3 and episode.chats[3][-1]["role"] == "user"
            seat = episode.answer("no JSON here")
        parts = episode.reward_parts()
        assert parts["invalid"] == parts["fallback"] == 1.0
        assert episode.reward() == pytest.approx(2.0 * parts["result"])
    finally:
        episode.close()
