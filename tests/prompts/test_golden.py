"""Snapshot tests: every decision template of both variants (and the generic
fallback), in English and Chinese, rendered from a fixed seeded game.

Regenerate after an intended change, then review the diff of the text files:

    UPDATE_PROMPT_GOLDEN=1 .venv/bin/pytest tests/prompts/test_golden.py

A variant change that alters the seeded game (events, wording of requests)
also changes these files; that is what they are for: every prompt change is
reviewed as text.
"""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path

import pytest

from sandbox.agents.llm.beliefs import PROBE_DECISION, probe_request
from sandbox.agents.llm.prompt.render import RenderedPrompt, render_prompt
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from tests.core.open_toy import OpenToy, OpenToyConfig
from tests.core.toy import Toy, ToyConfig
from tests.prompts.harness import Captured, new_game, play

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_PROMPT_GOLDEN") == "1"
LANGUAGES = ("en", "zh")
SEED = {"four_factions": 5, "killer": 7}
KINDS = {
    "four_factions": ("proofs", "accusation", "protection", "speak", "loadout", "attack"),
    "killer": ("kill_opinion", "check_opinion", "speech", "last_words", "vote"),
}
# Decisions asked only under a ruling the seeded games above leave out: an open
# day's ask (OD-5, discussion = "open"), rendered from an open game below; the
# killers' night talk (KG-3 ruling, killer_chat; tests/games/killer/test_talk.py).
OPEN_KINDS: dict[str, tuple[str, ...]] = {
    "four_factions": ("message",),
    "killer": ("message", "team_message"),
}


def role_kind(role: str) -> str:
    """FF roles are 'faction/elite|regular': the prompt differs by the second part."""
    return role.split("/")[-1]


def first_of_each(variant: str) -> dict[tuple[str, str], Captured]:
    """The first request of each (decision, role kind) in the seeded game."""
    seen: set[tuple[str, str]] = set()

    def pick(game: Game, request: DecisionRequest) -> bool:
        key = (request.decision, role_kind(game.roles()[request.seat]))
        if key in seen:
            return False
        seen.add(key)
        return True

    game = new_game(variant, SEED[variant])
    captured = play(game, random.Random(SEED[variant]), pick=pick)
    return {(c.request.decision, role_kind(c.role)): c for c in captured}


def snapshot_text(prompt: RenderedPrompt) -> str:
    system, user = (m["content"] for m in prompt.messages)
    return f"### system (prefix_chars={prompt.prefix_chars})\n{system}### user\n{user}"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"missing golden {path}; run with UPDATE_PROMPT_GOLDEN=1 and review"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file (review, then regenerate)"


@pytest.fixture(scope="module")
def ff_captures() -> dict[tuple[str, str], Captured]:
    return first_of_each("four_factions")


@pytest.fixture(scope="module")
def killer_captures() -> dict[tuple[str, str], Captured]:
    return first_of_each("killer")


def _case(captures: dict[tuple[str, str], Captured], decision: str) -> list[Captured]:
    found = [c for (d, _), c in sorted(captures.items()) if d == decision]
    assert found, f"the seeded game never asked for {decision!r}"
    return found


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("decision", KINDS["four_factions"])
def test_four_factions_golden(
    ff_captures: dict[tuple[str, str], Captured], decision: str, language: str
) -> None:
    for c in _case(ff_captures, decision):
        prompt = render_prompt(c.view, c.request, language=language, belief_probe=True)
        check_golden(
            f"four_factions/{language}/{decision}-{role_kind(c.role)}.txt", snapshot_text(prompt)
        )


@pytest.mark.parametrize("language", LANGUAGES)
def test_four_factions_open_message_golden(language: str) -> None:
    """OD-3, OD-5: the ask of an open day, in day 1's second round (the chat and
    a statement already given are in the record)."""
    game = new_game("four_factions", SEED["four_factions"], {"discussion": "open"})
    captured = play(
        game, random.Random(SEED["four_factions"]), pick=lambda g, r: g.state.open.round == 2
    )
    c = captured[0]
    assert c.request.decision == "message"
    prompt = render_prompt(c.view, c.request, language=language, belief_probe=True)
    check_golden(f"four_factions/{language}/message-open.txt", snapshot_text(prompt))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("decision", KINDS["killer"])
def test_killer_golden(
    killer_captures: dict[tuple[str, str], Captured], decision: str, language: str
) -> None:
    for c in _case(killer_captures, decision):
        prompt = render_prompt(c.view, c.request, language=language, belief_probe=True)
        check_golden(f"killer/{language}/{decision}-{c.role}.txt", snapshot_text(prompt))


# The compact style (small local models): short primer, last items only.
COMPACT_HISTORY = 6


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("decision", KINDS["killer"])
def test_killer_compact_golden(
    killer_captures: dict[tuple[str, str], Captured], decision: str, language: str
) -> None:
    for c in _case(killer_captures, decision):
        prompt = render_prompt(
            c.view,
            c.request,
            language=language,
            style="compact",
            history_items=COMPACT_HISTORY,
            rules_text="FULL RULES TEXT",
        )
        check_golden(f"killer/{language}/compact/{decision}-{c.role}.txt", snapshot_text(prompt))


@pytest.mark.parametrize("language", LANGUAGES)
def test_four_factions_compact_golden(
    ff_captures: dict[tuple[str, str], Captured], language: str
) -> None:
    """A variant without compact templates of its own: its full primer, the
    generic compact frame."""
    (c,) = _case(ff_captures, "attack")[:1]
    prompt = render_prompt(
        c.view,
        c.request,
        language=language,
        style="compact",
        history_items=COMPACT_HISTORY,
        belief_probe=True,
    )
    check_golden(
        f"four_factions/{language}/compact/attack-{role_kind(c.role)}.txt", snapshot_text(prompt)
    )


@pytest.fixture(scope="module")
def killer_open_captures() -> dict[tuple[str, str], Captured]:
    """An open game's asks (OD-5): the first of each role once the chat has begun."""
    seen: set[str] = set()

    def pick(game: Game, request: DecisionRequest) -> bool:
        role = game.roles()[request.seat]
        if request.decision != "message" or game.state.open.total == 0 or role in seen:
            return False
        seen.add(role)
        return True

    game = new_game("killer", SEED["killer"], {"discussion": "open"})
    captured = play(game, random.Random(SEED["killer"]), pick=pick)
    return {(c.request.decision, c.role): c for c in captured}


@pytest.mark.parametrize("style", ["full", "compact"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_killer_open_message_golden(
    killer_open_captures: dict[tuple[str, str], Captured], language: str, style: str
) -> None:
    """OD-5: the ask of an open day shows the round, the messages left and the
    chat so far (as speech lines), and asks to speak or wait."""
    folder = "compact/" if style == "compact" else ""
    for c in _case(killer_open_captures, "message"):
        prompt = render_prompt(
            c.view, c.request, language=language, style=style, history_items=COMPACT_HISTORY
        )
        text = snapshot_text(prompt)
        assert '"speak"' in text and "OD-5" in text
        check_golden(f"killer/{language}/{folder}message-{c.role}.txt", text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_generic_message_template_golden(language: str) -> None:
    """A variant without a message template of its own (the open toy) renders
    an open day's ask through prompts/_generic/<lang>/decisions/message.j2."""
    toy = OpenToy()
    game = Game.new(toy, OpenToyConfig(seats=3), 1)
    game.submit(game.pending()[0].id, {"speak": True, "text": "hello"})
    for request in game.pending():
        game.submit(request.id, {"speak": False})
    ask = dataclasses.replace(game.pending()[0], decision="message")
    prompt = render_prompt(game.view(ask.seat), ask, language=language)
    text = snapshot_text(prompt)
    assert '"speak"' in text
    check_golden(f"generic/{language}/message.txt", text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_generic_fallback_golden(language: str) -> None:
    """A variant with no templates (the toy) renders through prompts/_generic."""
    game = Game.new(Toy(), ToyConfig(), 1)
    for seat, pick in ((1, 1), (2, 2), (3, 3)):
        game.submit(f"0:{seat}", {"pick": pick})
    game.submit(game.pending()[0].id, {"speech": "I picked the lowest number."})
    request = game.pending()[0]
    prompt = render_prompt(
        game.view(request.seat),
        request,
        language=language,
        rules_text=Toy().rules_text(ToyConfig()),
        belief_probe=True,
    )
    check_golden(f"toy/{language}/{request.decision}.txt", snapshot_text(prompt))


def test_every_decision_kind_has_its_own_template() -> None:
    """The listed kinds are exactly the variants' decisions with a template in
    both languages (a new decision kind must get one, or be listed on purpose),
    plus the probe-only call's question (``belief_probe``)."""
    root = Path(__file__).parents[2] / "prompts"
    for variant, kinds in KINDS.items():
        expected = {*kinds, *OPEN_KINDS.get(variant, ()), PROBE_DECISION}
        for language in LANGUAGES:
            names = {p.stem for p in (root / variant / language / "decisions").glob("*.j2")}
            assert names == expected, (variant, language, names ^ expected)


PROBE_QUESTION = {"en": "No decision is open for you now.", "zh": "现在没有轮到你做决定。"}


# The probe-only call after a speech (probe_after_speech): the seat's view
# after the first speech of each seeded game, no field, only the beliefs.
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("variant", "speech"), [("killer", "speech"), ("four_factions", "speak")])
def test_probe_after_speech_golden(
    killer_captures: dict[tuple[str, str], Captured],
    ff_captures: dict[tuple[str, str], Captured],
    variant: str,
    speech: str,
    language: str,
) -> None:
    captures = killer_captures if variant == "killer" else ff_captures
    c = _case(captures, speech)[0]
    request = probe_request(c.view.seat, c.events_before)
    prompt = render_prompt(c.view, request, language=language, belief_probe=True)
    text = snapshot_text(prompt)
    # the variant's own probe question, not the generic "a decision of kind" line
    assert PROBE_QUESTION[language] in text and "belief_probe" not in text
    check_golden(f"{variant}/{language}/belief_probe.txt", text)
