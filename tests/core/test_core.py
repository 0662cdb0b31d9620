"""Core engine behaviour, exercised through a toy variant."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.agents.simple import RandomAgent, ScriptedAgent, ScriptError
from sandbox.core.errors import IllegalDecision, UnknownRequest
from sandbox.core.events import DecisionMade, event_from_json
from sandbox.core.game import Game
from sandbox.session.runner import Runner
from tests.core.toy import Secret, Toy, ToyConfig

TOY = Toy()


def play_random(seed: int) -> Game:
    game = Game.new(TOY, ToyConfig(), seed)
    agents = {s: RandomAgent(seed * 10 + s) for s in game.seats}
    asyncio.run(Runner(game, agents, abort_share=None).run())
    return game


def test_sealed_requests_open_together_and_resolve_when_all_in() -> None:
    game = Game.new(TOY, ToyConfig(), 1)
    reqs = game.pending()
    assert [r.seat for r in reqs] == [1, 2, 3]
    game.submit(reqs[0].id, {"pick": 1})
    assert [r.seat for r in game.pending()] == [2, 3]
    game.submit(reqs[1].id, {"pick": 2})
    events = game.submit(reqs[2].id, {"pick": 3})
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["core.decision", "toy.picks"]
    assert game.pending()[0].decision == "speak" and game.pending()[0].seat == 1


def test_illegal_choice_names_rule_and_legal_options() -> None:
    game = Game.new(TOY, ToyConfig(), 1)
    req = game.pending()[0]
    with pytest.raises(IllegalDecision) as err:
        game.submit(req.id, {"pick": 7})
    assert "[T-1]" in str(err.value) and "[1, 2, 3, null]" in str(err.value)
    with pytest.raises(IllegalDecision, match="Unknown field"):
        game.submit(req.id, {"pick": 1, "extra": 2})
    with pytest.raises(IllegalDecision, match="Missing field"):
        game.submit(req.id, {})
    with pytest.raises(IllegalDecision):
        game.submit(req.id, {"pick": True})  # bool is not the int 1
    assert len(game.pending()) == 3  # nothing recorded


def test_stale_or_repeated_request_is_rejected() -> None:
    game = Game.new(TOY, ToyConfig(), 1)
    req = game.pending()[0]
    game.submit(req.id, {"pick": 1})
    with pytest.raises(UnknownRequest):
        game.submit(req.id, {"pick": 2})
    with pytest.raises(UnknownRequest):
        game.submit("99:1", {"pick": 2})


def test_fallback_is_recorded_as_such() -> None:
    game = Game.new(TOY, ToyConfig(), 1)
    req = game.pending()[0]
    (made,) = game.submit_fallback(req.id, "invalid", "no idea")
    data = made.to_json()["data"]
    assert data["fallback"] is True and data["fallback_reason"] == "invalid"
    assert data["payload"] == {"pick": None}


def test_same_seed_same_game_and_replay_from_events() -> None:
    a, b = play_random(5), play_random(5)
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
    assert a.over and a.outcome() is not None
    rebuilt = Game.from_events(
        TOY, ToyConfig(), 5, [event_from_json(e.to_json()) for e in a.events]
    )
    assert rebuilt.outcome() == a.outcome()
    assert rebuilt.view(1) == a.view(1)


def test_views_hold_only_visible_events() -> None:
    game = play_random(3)
    for seat in game.seats:
        view = game.view(seat)
        secrets = [e for _, e in game.visible_events(seat) if isinstance(e, Secret)]
        assert [e.seat for e in secrets] == [seat]
        assert view.private["lucky"] == secrets[0].lucky


def test_scripted_agent_plays_in_order_then_falls_back() -> None:
    game = Game.new(TOY, ToyConfig(), 2)
    agents = {
        1: ScriptedAgent([{"decision": "pick", "pick": 3}]),
        2: ScriptedAgent([{"pick": 1}, {"speech": "hello"}]),
        3: ScriptedAgent([{"pick": 2}]),
    }
    runner = Runner(game, agents, abort_share=None)
    asyncio.run(runner.run())
    said = [e for e in game.events if e.kind == "toy.said"]
    assert said and said[0].to_json()["data"]["text"] == "hello"
    assert runner.stats.fallback_count("exhausted") >= 1


def test_skipped_requests_are_unlisted_not_exhausted() -> None:
    """skip_unlisted passes over requests before the script is used up: that is
    its own fallback reason, so stats never mistake it for a script that ran out."""
    game = Game.new(TOY, ToyConfig(), 2)
    waits_for_speech = ScriptedAgent([{"decision": "speak", "speech": "hi"}], skip_unlisted=True)
    agents = {1: waits_for_speech, 2: RandomAgent(2), 3: RandomAgent(3)}
    runner = Runner(game, agents, abort_share=None)
    asyncio.run(runner.run())
    reasons = [
        e.fallback_reason for e in game.events if isinstance(e, DecisionMade) and e.seat == 1
    ]
    assert reasons[0] == "unlisted"
    if waits_for_speech.used == 0:  # never reached its entry: every request was unlisted
        assert set(reasons) == {"unlisted"}


def test_broken_script_fails_loudly() -> None:
    game = Game.new(TOY, ToyConfig(), 2)
    agents = {s: ScriptedAgent([{"pick": 9}]) for s in game.seats}
    with pytest.raises(ScriptError, match="seat 1"):
        asyncio.run(Runner(game, agents, abort_share=None).run())


def test_from_events_cut_after_a_step_can_continue() -> None:
    full = play_random(7)
    cut = next(i for i, e in enumerate(full.events) if e.kind == "core.step") + 1
    rebuilt = Game.from_events(TOY, ToyConfig(), 7, full.events[:cut])
    assert rebuilt.pending() or rebuilt.over


def test_from_events_cut_mid_resolution_is_refused() -> None:
    full = play_random(7)
    step_at = next(i for i, e in enumerate(full.events) if e.kind == "core.step")
    with pytest.raises(ValueError, match="middle of a step"):
        Game.from_events(TOY, ToyConfig(), 7, full.events[:step_at])


def test_decide_now_runs_a_non_awaiting_agent_and_refuses_one_that_awaits() -> None:
    from sandbox.core.seat import Agent, AgentAnswer, AgentAwaited, DecisionContext, decide_now

    game = Game.new(TOY, ToyConfig(), 1)
    ctx = DecisionContext.for_request(game, game.pending()[0])
    answer = decide_now(RandomAgent(3), ctx)
    assert answer.payload is not None and answer.payload["pick"] in (1, 2, 3, None)

    class Sleeper(Agent):
        async def decide(self, ctx: DecisionContext) -> AgentAnswer:
            await asyncio.sleep(0)
            return AgentAnswer(None)

    with pytest.raises(AgentAwaited, match="Sleeper"):
        decide_now(Sleeper(), ctx)
