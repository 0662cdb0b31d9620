"""Graveyard talk in Werewolf (issue 38 item 7): the ``graveyard_chat`` ruling
on WW-16, off by default. The dead may talk among themselves and to
spectators, never to the living: each night, with the night's first step, every
dead seat may send one message, seen by the seats dead when it is said."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from sandbox.agents.baseline import BaselineAgent
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import GraveyardMessage, event_from_json
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Seating
from sandbox.games.werewolf.events import Dawn, Exiled
from sandbox.session.runner import Runner
from sandbox.testing import check_variant
from tests.games.werewolf.helpers import WW, answer_step, new_game, night, talk, vote
from tests.prompts.harness import play


def graveyard_asks(game: Game) -> list[int]:
    return [r.seat for r in game.pending() if r.decision == "graveyard_message"]


def to_night_two(game: Game) -> None:
    """Night 1 kills seat 5; the day exiles seat 6; night 2 opens."""
    night(game, kill=5)
    talk(game)
    vote(game, {s: 6 if s != 6 else 7 for s in game.seats})
    talk(game)  # any last words


def test_ww16_graveyard_chat_is_off_by_default_and_not_announced() -> None:
    game = new_game()
    assert "graveyard_chat" not in game.events[0].to_json()["data"]["rulings"]
    to_night_two(game)
    assert not graveyard_asks(game)


def test_ww16_the_dead_talk_with_the_night_s_first_step_and_only_the_dead_read_it() -> None:
    game = new_game(graveyard_chat=True)
    assert game.events[0].to_json()["data"]["rulings"]["graveyard_chat"] is True
    assert not graveyard_asks(game)  # nobody is dead on night 1
    to_night_two(game)
    assert graveyard_asks(game) == [5, 6]
    assert {r.rule for r in game.pending() if r.seat in (5, 6)} == {"WW-16"}
    living = {r.decision for r in game.pending() if r.seat not in (5, 6)}
    assert living and "graveyard_message" not in living  # the night goes on beside it
    answer_step(game, lambda r: {"message": "it was seat 1"} if r.seat == 5 else None)
    said, quiet = [e for e in game.events if isinstance(e, GraveyardMessage)]
    assert (said.seat, said.text, said.audience) == (5, "it was seat 1", (5, 6))
    assert (quiet.seat, quiet.text) == (6, "")  # a pass
    assert event_from_json(said.to_json()) == said
    assert not graveyard_asks(game)  # once a night
    for seat in (5, 6):
        heard = [i.speech for i in game.view(seat).history if i.kind == "talk.graveyard"]
        assert heard == ["it was seat 1", ""]
    for seat in game.state.alive:
        assert not [i for i in game.view(seat).history if i.kind == "talk.graveyard"]


def test_ww16_a_fallback_passes_and_a_dead_seat_may_not_vote() -> None:
    game = new_game(graveyard_chat=True)
    to_night_two(game)
    answer_step(game, lambda r: None)
    said = [e for e in game.events if isinstance(e, GraveyardMessage)]
    assert [e.text for e in said] == ["", ""]
    while not game.over and not any(r.decision == "vote" for r in game.pending()):
        answer_step(game, lambda r: None)
    vote_request = next(r for r in game.pending() if r.decision == "vote")
    dead_vote = DecisionRequest("x", 5, "vote", "WW-14", "", vote_request.fields)
    with pytest.raises(IllegalDecision, match="WW-16"):
        WW.rules.check(game.state, dead_vote, {"target": None})


@pytest.mark.parametrize("seed", range(4))
def test_ww16_no_living_seat_s_view_ever_holds_a_graveyard_message(seed: int) -> None:
    """Random games: every graveyard message is read by the dead alone; the
    living never see one, at any decision or at the end."""
    game = Game.new(WW, WW.parse_config({"graveyard_chat": True, "players": 10}), seed)

    def speak(request: DecisionRequest) -> str | None:
        return f"grave-{request.id}" if request.decision == "graveyard_message" else None

    captured = play(game, random.Random(seed), pick=lambda g, r: True, speak=speak)
    graves = [(i, e) for i, e in enumerate(game.events) if isinstance(e, GraveyardMessage)]
    for c in captured:
        shown = json.dumps(c.view.to_json(), ensure_ascii=False)
        for i, e in graves:
            if i < c.events_before and e.text and c.seat not in e.audience:
                assert e.text not in shown
    for i, e in graves:
        assert all(s not in _living_at(game, i) for s in e.audience)


def _living_at(game: Game, index: int) -> set[int]:
    """The living seats when event ``index`` was said (WW-11, WW-15 deaths before it)."""
    dead = {e.victim for e in game.events[:index] if isinstance(e, Dawn)}
    dead |= {e.seat for e in game.events[:index] if isinstance(e, Exiled)}
    return set(game.seats) - dead


def test_ww16_baseline_bots_pass_in_the_graveyard() -> None:
    game = Game.new(WW, WW.parse_config({"graveyard_chat": True}), 3)
    agents = {s: BaselineAgent() for s in game.seats}
    for seat, agent in agents.items():
        agent.attach(Seating(seat, 3, WW))
    asyncio.run(Runner(game, agents, abort_share=None).run())
    assert game.over
    graves = [e for e in game.events if isinstance(e, GraveyardMessage)]
    assert graves and all(e.text == "" for e in graves)


def test_ww16_the_conformance_kit_passes_with_graveyard_talk() -> None:
    """Visibility, folds, replay, determinism and the no-leak audit of the kit."""
    report = check_variant("werewolf", {"graveyard_chat": True}, games=3, seed=1)
    assert report.decisions > 0 and report.texts_audited > 0
