"""inspect_ai end to end: each variant's task evaluated on inspect's own
``mockllm/model`` (2 samples), the log read back with ``read_eval_log``.

With mockllm's default text every answer is invalid, so the evaluated seat's
decisions must end in repairs and then the recorded fallback; with legal
custom outputs the seat plays accepted answers. Either way every call of the
evaluated seat is one of inspect's model events, and the game's transcript is
a normal one (``sandbox replay`` reproduces it).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import Model, get_model

from sandbox.adapters.inspect_ai.mock import MOCK_MODEL, legal_outputs
from sandbox.adapters.inspect_ai.tasks import TASKS
from sandbox.games.registry import get_variant
from sandbox.session import replay
from sandbox.transcript import EventRow, Transcript, read_game

VARIANTS = ("killer", "four_factions", "werewolf")
MAX_REPAIRS = 2


def evaluate(variant: str, tmp_path: Path, model: str | Model = MOCK_MODEL, **args: Any) -> EvalLog:
    args.setdefault("games", 2)
    task = TASKS[variant](transcripts=str(tmp_path / "transcripts"), **args)
    [log] = inspect_ai.eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.location
    return read_eval_log(log.location)  # what was written, not what is in memory


def model_calls(sample: EvalSample) -> int:
    return sum(1 for event in sample.events if isinstance(event, ModelEvent))


def evaluated_lines(
    game: Transcript[EventRow], seat: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The seat's decisions (core.decision events) and its call lines."""
    decisions = [e for e in game.of_kind("core.decision") if e["seat"] == seat]
    calls = [c for c in game.calls if c.get("seat") == seat and not c.get("probe")]
    return decisions, calls


def check_sample(
    variant: str, sample: EvalSample, index: int, *, silent: bool = False
) -> Transcript[EventRow]:
    """What every sample carries: a score, and the game's metadata; a
    ``silent`` seat (every decision fell back) is scored invalid, never a win."""
    score = sample.scores["game"] if sample.scores else None
    assert score is not None and isinstance(score.value, dict)
    meta = sample.metadata
    seats = get_variant(variant).rules.seat_count(get_variant(variant).parse_config({}))
    # Sample i plays seat i mod seats + 1 of the game with seed i (no casting given).
    assert (meta["seed"], meta["seats"]) == (index, [index % seats + 1])
    game = read_game(Path(meta["transcript"]))
    seat = meta["seats"][0]
    role = game.roles[seat]
    assert meta["roles"] == {str(seat): role}
    assert meta["side"] == get_variant(variant).research.study_side(role)
    assert meta["model"] == MOCK_MODEL and meta["finished"] is True
    assert game.outcome is not None and meta["outcome"] == game.outcome["reason"]
    assert meta["results"] == {str(s): r for s, r in game.outcome["results"].items()}
    if silent:
        assert score.answer == "invalid" and score.value["invalid"] == 1.0
        assert math.isnan(float(score.value["win"]))
        assert score.value["valid_answer_rate"] == 0.0
    else:
        assert score.value["win"] == (1.0 if meta["results"][str(seat)] == "win" else 0.0)
        assert score.value["invalid"] == 0.0
    decided = [e for e in game.of_kind("core.decision") if e["seat"] == seat]
    assert score.value["fallbacks"] == sum(1 for e in decided if e["fallback"])
    assert meta["result"] == meta["results"][str(seat)]
    assert set(meta["opponents"].values()) == {"baseline"} and len(meta["opponents"]) == seats - 1
    assert game.agents[seat]["kind"] == "inspect" and game.agents[seat]["model"] == MOCK_MODEL
    assert replay(Path(meta["transcript"])) is None  # a normal, replayable transcript
    return game


@pytest.mark.parametrize("variant", VARIANTS)
def test_default_mock_answers_end_in_repairs_then_recorded_fallbacks(
    variant: str, tmp_path: Path
) -> None:
    log = evaluate(variant, tmp_path, max_repairs=MAX_REPAIRS)
    assert log.samples is not None and len(log.samples) == 2
    for index, sample in enumerate(log.samples):
        game = check_sample(variant, sample, index, silent=True)
        seat = sample.metadata["seats"][0]
        decisions, calls = evaluated_lines(game, seat)
        assert decisions and all(d["fallback_reason"] == "invalid" for d in decisions)
        assert sample.scores is not None
        assert sample.scores["game"].value["repairs"] == len(decisions) * MAX_REPAIRS  # type: ignore[index]
        assert sample.metadata["fallbacks"] == {str(seat): {"invalid": len(decisions)}}
        # One first answer and MAX_REPAIRS repairs per decision, each through inspect.
        assert len(calls) == len(decisions) * (MAX_REPAIRS + 1) == model_calls(sample)
        assert [c["repair"] for c in calls[: MAX_REPAIRS + 1]] == list(range(MAX_REPAIRS + 1))
        assert all(c["raw"] == "Default output from mockllm/model" for c in calls)
        assert all(str(c["error"]).startswith("invalid: ") for c in calls)
        assert all(c["tokens_in"] > 0 for c in calls)  # inspect's usage is recorded
        repaired = calls[1]["messages"]
        assert repaired[-2] == {"role": "assistant", "content": calls[0]["raw"]}
    assert log.results is not None
    # Silent seats are never scored as a win: inspect leaves both samples out.
    win = [s for s in log.results.scores if s.name == "win" and "mean" in s.metrics]
    assert not win or win[0].scored_samples == 0
    invalid = [s for s in log.results.scores if s.name == "invalid"]
    assert invalid and invalid[0].metrics["mean"].value == 1.0


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_mock_answers_are_accepted_by_the_referee(variant: str, tmp_path: Path) -> None:
    model = get_model(MOCK_MODEL, custom_outputs=legal_outputs(seed=3), memoize=False)
    log = evaluate(variant, tmp_path, model=model)
    assert log.samples is not None and len(log.samples) == 2
    for index, sample in enumerate(log.samples):
        game = check_sample(variant, sample, index)
        seat = sample.metadata["seats"][0]
        decisions, calls = evaluated_lines(game, seat)
        accepted = [d for d in decisions if not d["fallback"]]
        assert accepted, "no legal answer was played"
        # Each accepted decision is the payload its last call parsed.
        parsed = [c["parsed"] for c in calls if c.get("parsed") is not None]
        assert [d["payload"] for d in accepted] == parsed
        assert len(calls) == model_calls(sample)


def test_a_side_is_played_by_every_seat_on_it(tmp_path: Path) -> None:
    """side=each: the two samples play the same seed from each side, the model
    on every seat of the side, and the win is that side's result."""
    model = get_model(MOCK_MODEL, custom_outputs=legal_outputs(seed=5), memoize=False)
    log = evaluate("killer", tmp_path, model=model, side="each")
    assert log.samples is not None
    variant = get_variant("killer")
    sides = []
    for sample in log.samples:
        meta = sample.metadata
        game = read_game(Path(meta["transcript"]))
        assert meta["seed"] == 0
        on_side = sorted(
            s for s, r in game.roles.items() if variant.research.study_side(r) == meta["side"]
        )
        assert meta["seats"] == on_side and len(on_side) > 1
        assert all(game.agents[s]["kind"] == "inspect" for s in on_side)
        assert all(game.agents[s]["kind"] == "baseline" for s in game.roles if s not in on_side)
        won = {meta["results"][str(s)] for s in on_side} == {"win"}
        assert sample.scores is not None
        assert sample.scores["game"].value["win"] == float(won)  # type: ignore[index]
        sides.append(meta["side"])
    assert sides == list(variant.research.study_sides())


def test_the_fake_model_fills_opponent_seats(tmp_path: Path) -> None:
    """opponents=fake: the other seats are llm seats on the built-in fake model
    (a real server on loopback) answering legally."""
    log = evaluate("killer", tmp_path, opponents="fake", games=1, seat=1)
    assert log.samples is not None
    [sample] = log.samples
    game = read_game(Path(sample.metadata["transcript"]))
    others = [s for s in game.roles if s != 1]
    assert {game.agents[s]["model"] for s in others} == {"fake/legal-random"}
    assert {sample.metadata["opponents"][str(s)] for s in others} == {"fake"}
    accepted = [e for e in game.of_kind("core.decision") if e["seat"] != 1 and not e["fallback"]]
    assert accepted


def test_the_belief_probe_is_scored_as_calibration(tmp_path: Path) -> None:
    """belief_probe=true: the seat's probes become belief_accuracy and
    belief_brier, computed from the transcript's call lines."""
    model = get_model(MOCK_MODEL, custom_outputs=legal_outputs(seed=7), memoize=False)
    log = evaluate(
        "killer", tmp_path, model=model, games=1, belief_probe=True, rules={"players": 13}
    )
    assert log.samples is not None and log.results is not None
    [sample] = log.samples
    game = read_game(Path(sample.metadata["transcript"]))
    assert len(game.roles) == 13  # the rulings reached the game
    seat = sample.metadata["seats"][0]
    probes = [c for c in game.calls if c.get("seat") == seat and isinstance(c.get("beliefs"), dict)]
    assert probes
    assert sample.scores is not None
    value = sample.scores["game"].value
    assert isinstance(value, dict) and 0.0 <= float(value["belief_accuracy"]) <= 1.0  # type: ignore[arg-type]
    named = {s.name: s for s in log.results.scores}
    guesses = sum(len(c["beliefs"]) for c in probes)
    assert named["belief_brier"].metrics["pooled_items"].value == guesses


def test_an_inspect_limit_stops_the_game_unfinished(tmp_path: Path) -> None:
    """inspect's token limit ends the sample mid-game: it scores NaN, says why,
    and the partial transcript stays in the folder (no outcome line)."""
    task = TASKS["killer"](games=1, seat=1, transcripts=str(tmp_path / "transcripts"))
    [log] = inspect_ai.eval(
        task, model=MOCK_MODEL, log_dir=str(tmp_path / "logs"), display="none", token_limit=3000
    )
    assert log.location
    [sample] = read_eval_log(log.location).samples or []
    assert sample.limit is not None and sample.limit.type == "token"
    assert sample.metadata["outcome"] == "stopped by inspect's token limit"
    assert sample.scores is not None
    value = sample.scores["game"].value
    assert isinstance(value, dict) and all(math.isnan(float(v)) for v in value.values())  # type: ignore[arg-type]
    [path] = (tmp_path / "transcripts").glob("*.jsonl")
    game = read_game(path)
    assert game.outcome is None and game.of_kind("core.decision")
