"""An open day said to a person (issue 42, OD-7): the ask's instruction and
the refusal of an empty message in plain words, in English and Chinese, never
the models' answer field ("speak: true"); the models' instruction is left as
it is (the prompt goldens hold it)."""

from __future__ import annotations

import functools
import html
import re

import pytest

from sandbox.agents.human import open_day
from sandbox.agents.human.refusal import refusal_words
from sandbox.agents.simple import RandomAgent
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.registry import get_variant
from sandbox.web.form import render_form

VARIANTS = {
    "killer": {"players": 11, "discussion": "open"},
    "werewolf": {"discussion": "open"},
    "four_factions": {"discussion": "open"},
}


@functools.cache
def an_ask(name: str, rounds: int) -> tuple[Game, DecisionRequest]:
    """A game of ``name`` played by random seats to its first message ask after
    ``rounds`` asked rounds (0: the day's first)."""
    variant = get_variant(name)
    game = Game.new(variant, variant.config_model.model_validate(VARIANTS[name]), 3)
    agents = {seat: RandomAgent(seat) for seat in game.seats}
    seen = 0
    while True:
        pending = game.pending()
        asks = [r for r in pending if r.decision == "message"]
        if asks and seen == rounds:
            return game, asks[0]
        seen += bool(asks)
        for request in pending:
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game, request))
            try:
                game.submit(request.id, answer.payload)
            except Exception:  # a random draw the referee refuses: its fallback
                game.submit_fallback(request.id, "invalid")


def instruction_on_page(game: Game, request: DecisionRequest, language: str) -> str:
    view = game.view(request.seat)
    page = render_form(request, language, view)
    found = re.search(r'<p class="instruction">(.*?)</p>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def budget(request: DecisionRequest) -> tuple[int, int]:
    """The round and the messages left as the models' instruction states them."""
    text = request.instruction
    number = re.search(r"round (\d+)", text)
    left = re.search(r"(\d+) (?:left|more)", text)
    assert number is not None and left is not None
    return int(number.group(1)), int(left.group(1))


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("rounds", [0, 3])
def test_od7_the_page_says_the_ask_in_plain_words(name: str, rounds: int) -> None:
    game, request = an_ask(name, rounds)
    assert "speak: true" in request.instruction  # the models' own, unchanged
    number, left = budget(request)
    day = game.view(request.seat).public.get("day")
    en = instruction_on_page(game, request, "en")
    zh = instruction_on_page(game, request, "zh")
    assert en.startswith(
        f"Day {day}, round {number}: post a message whenever you like ({left} left today), "
        "or wait this round."
    )
    assert zh.startswith(f"第{day}天第{number}轮：想发言就随时发一条消息（今天还剩{left}条）")
    for said in (en, zh):
        assert "speak" not in said and "true" not in said and "false" not in said


def test_od7_four_factions_keeps_what_its_ask_adds() -> None:
    """The variant's words after the choice stay (Four Factions: the statement
    a seat owes); its budget sentence is said once, in the people's words."""
    game, request = an_ask("four_factions", 0)
    en = instruction_on_page(game, request, "en")
    assert "You still owe your four proofs" in en
    assert "You may post" not in en


def test_od7_without_a_view_the_choice_alone() -> None:
    _, request = an_ask("killer", 0)
    assert open_day.instruction(request, None, "en") == (
        "Post a message whenever you like, or wait this round."
    )
    assert open_day.instruction(request, None, "zh") == "想发言就随时发一条消息，或者这一轮先等待。"


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_od2_an_empty_message_is_refused_in_plain_words(name: str) -> None:
    """A person meets OD-2's refusal by sending an empty box (the page's Send,
    the terminal's full form): told to write something or wait, not to send
    "speak: false"."""
    game, request = an_ask(name, 0)
    with pytest.raises(IllegalDecision) as refused:
        DecisionContext.for_request(game, request).validate({"speak": True, "speech": ""})
    assert refused.value.rule == "OD-2"
    assert refusal_words(refused.value, request, "en") == (
        "Your message is empty: write something, or wait this round. (rule OD-2)"
    )
    assert refusal_words(refused.value, request, "zh") == (
        "你的消息是空的：请写点内容，或者这一轮先等待。（规则 OD-2）"
    )
