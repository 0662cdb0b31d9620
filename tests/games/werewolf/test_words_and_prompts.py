"""The words table (sandbox/games/werewolf/words.py) covers every event kind and
decision in both languages and reaches the renderer through Variant.words(); the prompts
render every decision in both styles and languages, Chinese without English
engine text, each citing its rule."""

from __future__ import annotations

import random

import pytest

import sandbox.games.werewolf.events as ev
import sandbox.words as words
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.core.events import Event
from sandbox.core.words import Answer, Lang
from sandbox.games.registry import get_variant
from sandbox.games.werewolf.info import INFO, ROLES, SIDES
from sandbox.games.werewolf.words import DECISIONS, SENTENCES, WORDS
from tests.prompts.harness import Captured, new_game, play
from tests.prompts.test_prompt_review import english_runs

RULINGS = {"wolf_chat": True, "last_words": True, "discussion": "bidding", "turns": 2}
KINDS = {
    cls.kind
    for cls in vars(ev).values()
    if isinstance(cls, type) and issubclass(cls, Event) and cls.__module__ == ev.__name__
}


def captured() -> dict[str, Captured]:
    """The first request of each decision over a few seeded random games."""
    found: dict[str, Captured] = {}
    # The open day's ask (WW-12 open, OD-5) and the graveyard's (WW-16 ruling)
    # come from games of their own.
    own = [(0, {"discussion": "open"}), (0, {"graveyard_chat": True})]
    for seed, rulings in [(s, RULINGS) for s in range(6)] + own:
        game = new_game("werewolf", seed, rulings)

        def pick(g: object, request: object) -> bool:
            return getattr(request, "decision", "") not in found

        for c in play(game, random.Random(seed), pick=pick):
            found.setdefault(c.request.decision, c)
    return found


@pytest.fixture(scope="module")
def captures() -> dict[str, Captured]:
    return captured()


def test_every_event_kind_has_its_sentence() -> None:
    assert set(SENTENCES) == KINDS


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_event_of_a_game_is_said_in_both_languages(language: str) -> None:
    game = new_game("werewolf", 3, RULINGS)
    play(game, random.Random(3))
    said = set()
    L = words.lang(language, get_variant("werewolf"))
    for event in game.events:
        data = event.to_json()["data"]
        line = (
            words.line_text(SENTENCES[event.kind](data, L), None, language)
            if event.kind in SENTENCES
            else None
        )
        if line is not None:
            assert line.strip() and "{" not in line
            said.add(event.kind)
            if language == "zh" and event.kind not in (
                "werewolf.speech",
                "werewolf.last_words",
                "werewolf.wolf_message",
            ):
                assert english_runs(line) == [], line
                # the game words too are said in Chinese (vocabulary.py)
                assert not {w for w in (*ROLES, *SIDES) if w in line}, line
    assert len(said) > 15


def test_the_renderer_finds_the_table_through_the_variant() -> None:
    assert get_variant("werewolf").words() is WORDS
    dawn = ev.Dawn(2, 5, "villager").to_json()
    assert words.words_for(get_variant("werewolf"), dawn["kind"], dawn["data"]).sentence == (
        "Day 2 dawns; seat 5 died in the night (villager)."
    )
    decision = {"seat": 3, "decision": "vote", "payload": {"target": 5}}
    assert words.words_for(
        get_variant("werewolf"), "core.decision", decision, "zh", you=3
    ).sentence == ("你投票放逐5号。")
    assert words.words_for(get_variant("werewolf"), dawn["kind"], dawn["data"], "zh").sentence == (
        "第2天天亮，5号昨夜死亡（村民）。"
    )


def test_log_lines_are_the_english_sentences() -> None:
    """describe_event: the contract's default, the English sentence with the
    speech (as shown, WW-13) quoted after it."""
    werewolf = get_variant("werewolf")
    assert werewolf.describe_event(ev.Dawn(1, None, None)) == (
        "Day 1 dawns; nobody died in the night."
    )
    speech = ev.Speech(1, 3, 1, "you idiot", "you ***", claim="seer", accuse=(5,))
    assert werewolf.describe_event(speech) == (
        'Seat 3 says (accuses seat 5; claims seer) [softened]: "you ***"'
    )


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_decision_has_a_phrase(language: str) -> None:
    L = Lang(language)
    payloads = {
        "protect": {"target": 4},
        "inspect": {"target": None},
        "kill": {"target": 2},
        "wolf_message": {"message": "x"},
        "bid": {"bid": 3},
        "speech": {"speech": "hi", "claim": "seer", "accuse": [2]},
        "last_words": {"speech": ""},
        "vote": {"target": None},
        "message": {"speak": True, "speech": "hi", "accuse": [2]},
        "graveyard_message": {"message": "boo"},  # WW-16 ruling (graveyard_chat)
    }
    assert set(payloads) == set(INFO.decisions) == set(DECISIONS)
    for decision, payload in payloads.items():
        answer = Answer(decision, INFO.decisions[decision], payload)
        for you in (True, False):
            phrase = DECISIONS[decision](answer, L, you)
            assert phrase, decision
    # OD-5: a wait is said as a wait, never as a speech that passed
    wait = Answer("message", INFO.decisions["message"], {"speak": False})
    assert DECISIONS["message"](wait, L, False) == L.say(en="waits", zh="选择等待")


def test_prompts_cover_every_decision(captures: dict[str, Captured]) -> None:
    assert set(captures) == set(INFO.decisions)


@pytest.mark.parametrize("style", ["full", "compact"])
def test_chinese_prompts_carry_no_english_engine_text(
    captures: dict[str, Captured], style: str
) -> None:
    variant = new_game("werewolf", 0, RULINGS).variant
    rules = variant.rules_text(variant.parse_config(RULINGS), "zh")
    for decision, c in captures.items():
        prompt = render_prompt(
            c.view,
            c.request,
            language="zh",
            style=style,  # type: ignore[arg-type]
            rules_text=rules,
            belief_probe=True,
        )
        text = "\n".join(m["content"] for m in prompt.messages)
        assert english_runs(text) == [], (decision, english_runs(text)[:3])


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("style", ["full", "compact"])
def test_each_decision_section_cites_its_rule(
    captures: dict[str, Captured], language: str, style: str
) -> None:
    for c in captures.values():
        prompt = render_prompt(c.view, c.request, language=language, style=style)  # type: ignore[arg-type]
        user = prompt.messages[1]["content"]
        question = user.rpartition("\n# ")[2]  # the last section: the decision
        assert c.request.rule in question, (c.request.decision, language, style)
