"""OD-7 at the terminal: during an open day a person types a message at the
round's prompt and it is posted (Enter alone waits; '+' asks every field)."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from sandbox.agents.human.terminal import HumanTerminalAgent
from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.registry import get_variant


def an_open_day_ask() -> tuple[Game, DecisionRequest]:
    """A Killer game (open days) played by random seats to its first ask."""
    variant = get_variant("killer")
    config = variant.config_model.model_validate({"players": 11, "discussion": "open"})
    game = Game.new(variant, config, 3)
    agents = {seat: RandomAgent(seat) for seat in game.seats}
    while not any(r.decision == "message" for r in game.pending()):
        for request in game.pending():
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game, request))
            if answer.payload is None:
                game.submit_fallback(request.id, "invalid")
                continue
            try:
                game.submit(request.id, answer.payload)
            except Exception:
                game.submit_fallback(request.id, "invalid")
    return game, game.pending()[0]


def typed(
    lines: str, game: Game, request: DecisionRequest, language: str = "en"
) -> tuple[dict[str, object], str]:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    seat = HumanTerminalAgent(request.seat, io.StringIO(lines), console, language=language)
    answer = asyncio.run(seat.decide(DecisionContext.for_request(game, request)))
    assert answer.payload is not None
    return dict(answer.payload), out.getvalue()


def test_od7_a_line_typed_at_an_open_day_prompt_is_posted() -> None:
    game, request = an_open_day_ask()
    payload, shown = typed("Seat 5 is lying, I am a civilian\n", game, request)
    assert payload == {"speak": True, "speech": "Seat 5 is lying, I am a civilian"}
    assert "Enter alone waits" in shown
    game.submit(request.id, payload)  # the referee takes it as it is


def test_od7_enter_alone_waits_and_rules_card_come_before_the_line() -> None:
    game, request = an_open_day_ask()
    payload, shown = typed("rules\ncard\n\n", game, request)
    assert payload == {"speak": False}
    assert shown.count("Your card:") >= 2  # once with the news, once asked


def test_od7_plus_asks_every_field_of_the_message() -> None:
    game, request = an_open_day_ask()
    # the full form: speak, speech, claim (left out: none), accuse, vouch
    payload, _ = typed("+\ny\nI accuse nobody\nnone\n\n\n", game, request)
    assert payload["speak"] is True and payload["speech"] == "I accuse nobody"


def test_od7_the_prompt_says_the_ask_in_plain_words() -> None:
    """Issue 42: the person reads the day, the round and the messages left, not
    the models' answer field ("speak: true"); in Chinese at a Chinese seat."""
    game, request = an_open_day_ask()
    assert "speak: true" in request.instruction  # the models' own, unchanged
    _, shown = typed("\n", game, request)
    assert "Day 1, round 1: post a message whenever you like (3 left today), or wait" in shown
    assert "speak:" not in shown
    _, shown = typed("\n", game, request, "zh")
    assert "第1天第1轮：想发言就随时发一条消息（今天还剩3条）" in shown
    assert "直接按回车则本轮等待" in shown and "speak:" not in shown


def test_od2_an_empty_message_of_the_full_form_is_refused_in_plain_words() -> None:
    game, request = an_open_day_ask()
    # the full form: post (y) with no text, no claim, nobody named; then a wait
    _, shown = typed("+\ny\n\nnone\n\n\nn\n\nnone\n\n\n", game, request)
    refusal = next(line for line in shown.splitlines() if "The referee refuses" in line)
    assert refusal.endswith(
        "Your message is empty: write something, or wait this round. (rule OD-2)"
    )
