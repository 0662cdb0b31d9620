"""The stepping interface (``sandbox.adapters.step``): a real game loop driven
one answer at a time. Each stepped game's transcript is re-refereed by the
replay code, so what it recorded is what the referee makes of the answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox.adapters.external import EXTERNAL
from sandbox.adapters.step import DEFAULT_ATTEMPTS, SteppedGame
from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.simple import RandomAgent, ScriptError
from sandbox.core.seat import FALLBACK_INVALID
from sandbox.session.gamefile import parse_config
from sandbox.session.replay import replay
from sandbox.transcript import read_transcript

VARIANTS = ["killer", "four_factions", "werewolf"]


def play_out(game: SteppedGame, pick: int = 0) -> int:
    """Answer every question with the ``pick``-th legal move; the answers given."""
    answers = 0
    while not game.over:
        obs = game.observation()
        moves = obs["moves"]
        verdict = game.step(moves[pick % len(moves)])
        assert verdict.accepted, verdict.error
        answers += 1
    return answers


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_stepped_game_writes_a_transcript_that_replay_reproduces(
    variant: str, tmp_path: Path
) -> None:
    with SteppedGame(variant, transcript=tmp_path) as game:
        game.reset(seed=11)
        answers = play_out(game, pick=1)
        assert game.transcript_path is not None
        assert replay(game.transcript_path) is None
        transcript = read_transcript(game.transcript_path)
    decisions = [e for e in transcript.events if e.kind == "core.decision"]
    assert answers == len(decisions) > 10  # every seat external: every decision was stepped
    assert transcript.header["stepped"] == {"external": list(range(1, len(game.roles()) + 1))}
    assert transcript.header["played_from"] == "python"  # resume asks for a game file
    assert {a["kind"] for a in transcript.header["agents"].values()} == {EXTERNAL}
    assert transcript.outcome is not None
    results = transcript.outcome["results"]
    assert game.rewards() == {
        int(s): {"win": 1.0, "draw": 0.0, "lose": -1.0}[r] for s, r in results.items()
    }


def test_an_illegal_answer_gets_the_referees_error_and_the_same_seat_again(
    tmp_path: Path,
) -> None:
    with SteppedGame("killer", external=[1, 2, 3, 4], transcript=tmp_path) as game:
        game.reset(seed=4)
        seat = game.current_seat()
        assert seat is not None
        obs = game.observation()
        request = obs["request"]
        choice = next(f for f in request["fields"] if f["type"] == "choice")
        illegal = {**obs["moves"][0], choice["name"]: 99}
        verdict = game.step(illegal)
        assert not verdict.accepted and not verdict.fallback
        assert f"Field '{choice['name']}' = 99 is not allowed" in str(verdict.error)
        assert game.current_seat() == seat
        again = game.observation()
        assert again["request"]["id"] == request["id"]
        assert again["attempt"] == 1 and again["errors"] == [verdict.error]
        verdict = game.step("{not json")
        assert "not valid JSON" in str(verdict.error) and game.current_seat() == seat
        verdict = game.step(["a list"])
        assert verdict.fallback and verdict.attempts == DEFAULT_ATTEMPTS == 3
        assert verdict.error == "The answer must be one JSON object."
        play_out(game)
        path = game.transcript_path
        assert path is not None
    assert replay(path) is None  # the counters of the outcome line agree with the lines
    transcript = read_transcript(path)
    made = next(e for e in transcript.events if getattr(e, "request_id", None) == request["id"])
    assert made.fallback and made.fallback_reason == FALLBACK_INVALID  # type: ignore[attr-defined]
    assert "[referee] The answer must be one JSON object." in made.note  # type: ignore[attr-defined]
    calls = [c for c in transcript.calls if c["request_id"] == request["id"]]
    assert [c["repair"] for c in calls] == [0, 1, 2]
    assert all(c["error"].startswith("invalid: ") for c in calls)
    assert transcript.outcome is not None and transcript.outcome["stats"]["repairs"] >= 2


def test_a_reasoning_key_is_kept_as_the_private_note(tmp_path: Path) -> None:
    with SteppedGame("four_factions", external=[2], transcript=tmp_path) as game:
        game.reset(seed=2)
        obs = game.observation()
        verdict = game.step(json.dumps({**obs["moves"][0], "reasoning": "my plan"}))
        assert verdict.accepted
        request_id = obs["request"]["id"]
        game.close()
        assert game.transcript_path is not None
        made = [
            e for e in read_transcript(game.transcript_path).events if e.kind == "core.decision"
        ]
    mine = next(e for e in made if e.request_id == request_id)  # type: ignore[attr-defined]
    assert mine.note == "my plan"  # type: ignore[attr-defined]


def test_sealed_answers_are_asked_seat_by_seat_and_revealed_together() -> None:
    """A step with several requests (Killer's night: the killers' and the police's
    opinions): the seats are asked in seat order, and no answer is recorded, or
    seen by another seat, before the last one is in."""
    with SteppedGame("killer", transcript=None) as game:
        game.reset(seed=9)
        assert game.game is not None
        step_seats: list[int] = []
        start = len(game.game.events)
        first_view = None
        while True:
            seat = game.current_seat()
            assert seat is not None
            obs = game.observation()
            if step_seats and first_view is None:
                first_view = obs["view"]
            step_seats.append(seat)
            game.step(obs["moves"][0])
            if len(game.game.events) != start:
                break  # the step resolved: its answers are recorded together
        assert len(step_seats) >= 3 and step_seats == sorted(step_seats)
        recorded = [e for e in game.game.events[start:] if e.kind == "core.decision"]
        assert [e.seat for e in recorded] == step_seats  # type: ignore[attr-defined]
        # the second seat's view showed no trace of the first seat's answer
        assert first_view is not None
        assert all(item["kind"] != "core.decision" for item in first_view["history"])


def test_opponents_from_a_factory_and_rewards_from_a_table(tmp_path: Path) -> None:
    table = {"win": 5.0, "lose": -2.0}
    with SteppedGame(
        "werewolf",
        external=lambda seat, role: role == "seer",
        opponents=lambda seat, role: RandomAgent(seat),
        rewards=table,
        transcript=tmp_path,
    ) as game:
        game.reset(seed=21)
        seer = [s for s, r in game.roles().items() if r == "seer"]
        assert game.external_seats == tuple(seer)
        while not game.over:
            assert game.current_seat() in seer
            game.step(game.observation()["moves"][0])
        assert game.outcome is not None
        expected = {
            s: {"win": 5.0, "lose": -2.0, "draw": 0.0}[r] for s, r in game.outcome.results.items()
        }
        assert game.rewards() == expected
        assert game.transcript_path is not None
        assert replay(game.transcript_path) is None
        agents = read_transcript(game.transcript_path).header["agents"]
    assert {a["kind"] for s, a in agents.items() if int(s) not in seer} == {"random"}


def test_other_seats_from_a_game_file_and_an_llm_opponent(tmp_path: Path) -> None:
    loaded = parse_config(
        {
            "variant": "killer",
            "rules": {"players": 13},
            "default_agent": {"kind": "random"},
            "agent": [{"seats": [2], "kind": "llm", "model": "fake/legal-random"}],
        }
    )
    with SteppedGame(game_file=loaded, external=[1], transcript=tmp_path) as game:
        game.reset(seed=5)
        play_out(game)
        assert game.transcript_path is not None
        header = read_transcript(game.transcript_path).header
        assert replay(game.transcript_path) is None
    assert header["agents"]["2"]["kind"] == "llm" and header["agents"]["3"]["kind"] == "random"
    assert header["config"]["default_agent"] == {"kind": "random"}  # the game file, as given
    assert len(header["roles"]) == 13


def test_llm_opponents_from_a_mapping_play_through_the_loop(tmp_path: Path) -> None:
    opponents = {s: LLMAgent("fake/legal-random") for s in range(2, 12)}
    with SteppedGame(
        "killer", rules={"players": 11}, external=[1], opponents=opponents, transcript=tmp_path
    ) as game:
        game.reset(seed=8)
        play_out(game)
        assert game.transcript_path is not None
        calls = read_transcript(game.transcript_path).calls
    assert any("fake-legal-random" in str(c.get("model")) for c in calls)


def test_an_error_of_an_opponent_is_raised_by_the_call_that_waited_for_it() -> None:
    from sandbox.agents.simple import ScriptedAgent

    with (
        SteppedGame(
            "killer",
            external=[],
            opponents=lambda seat, role: ScriptedAgent([{"target": 99}, {"suspect": 99}]),
            transcript=None,
        ) as game,
        pytest.raises(ScriptError, match="seat"),
    ):
        game.reset(seed=1)


def test_reset_mid_game_leaves_the_first_transcript_unfinished(tmp_path: Path) -> None:
    with SteppedGame("killer", transcript=tmp_path) as game:
        game.reset(seed=1)
        game.step(game.observation()["moves"][0])
        first = game.transcript_path
        game.reset(seed=2)
        assert game.transcript_path != first and game.current_seat() is not None
    assert first is not None and read_transcript(first).outcome is None
    assert replay(first) is None  # an unfinished prefix, still the referee's


def test_bad_arguments_are_refused_up_front() -> None:
    with pytest.raises(ValueError, match="unknown result"):
        SteppedGame("killer", rewards={"victory": 1.0}, transcript=None)
    with pytest.raises(ValueError, match="variant or a game file"):
        SteppedGame(transcript=None)
    game = SteppedGame("killer", transcript=None)
    with pytest.raises(RuntimeError, match="reset"):
        game.observation()
    game.close()


def test_an_integer_answer_is_the_index_of_a_legal_move(tmp_path: Path) -> None:
    with SteppedGame("killer", external=[1, 2, 3, 4, 5], transcript=tmp_path) as game:
        game.reset(seed=6)
        obs = game.observation()
        verdict = game.step(len(obs["moves"]))
        assert verdict.error == (
            f"Move {len(obs['moves'])} is not one of the {len(obs['moves'])} legal moves "
            f"(0..{len(obs['moves']) - 1})."
        )
        verdict = game.step(len(obs["moves"]) - 1)
        assert verdict.accepted and verdict.payload == obs["moves"][-1]
        assert verdict.attempts == 2
