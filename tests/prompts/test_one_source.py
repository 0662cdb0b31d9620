"""Issue 36: one source of words per event and language. A model seat's record
says each event in the sentence the viewer, the web pages and the terminal
seats show (the variant's words), and the rules text is a template."""

from __future__ import annotations

import random
import subprocess
import sys
from importlib import resources

import pytest

from sandbox.agents.llm.prompt.escaping import referee_mark
from sandbox.agents.llm.prompt.record import history_lines
from sandbox.games.registry import get_variant
from sandbox.words import item_words, seat_words
from tests.prompts.harness import new_game, play

VARIANTS = ("killer", "four_factions", "werewolf")


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_each_referee_line_is_the_viewers_sentence(variant: str, language: str) -> None:
    captured = play(new_game(variant, 3), random.Random(3), pick=lambda g, r: True)
    view = captured[-1].view
    lines = history_lines(view, language)
    found = get_variant(variant)
    mark = referee_mark(language)
    said = 0
    for item in view.history:
        told = item_words if item.public else seat_words
        words = told(found, item, view.seat, language)
        if item.speech is not None and not words.claims:
            continue  # a plain speech is only its quoted line
        if words.category == "bookkeeping":
            continue
        sentence = " ".join(words.sentence.split())
        assert any(line.startswith(f"{mark} {sentence}") for line in lines), (item.kind, sentence)
        said += 1
    assert said > 10


def test_the_seats_own_card_is_said_to_it() -> None:
    captured = play(new_game("killer", 3), random.Random(3), pick=lambda g, r: True)
    view = captured[0].view
    lines = history_lines(view, "en")
    assert any(line.startswith("⟦REFEREE⟧ You are dealt the ") for line in lines), lines


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_rules_text_is_its_template(variant: str, language: str) -> None:
    template = resources.files("sandbox.prompts") / variant / language / "rules.j2"
    assert template.is_file()
    found = get_variant(variant)
    text = found.rules_text(found.parse_config({}), language).splitlines()
    lines = template.read_text("utf-8").splitlines()
    fixed = [line for line in lines if line and "{" not in line]
    assert len(fixed) > 5
    assert all(line in text for line in fixed)  # its plain lines, word for word
    assert not any("{{" in line or "{%" in line for line in text)


def test_a_ruling_reaches_the_rules_text_through_its_template() -> None:
    killer = get_variant("killer")
    exact = killer.rules_text(killer.parse_config({"check_answer": "identity"}), "zh")
    binary = killer.rules_text(killer.parse_config({"check_answer": "killer_or_not"}), "zh")
    assert "此人的确切身份" in exact and "此人是不是杀手" in binary


def test_the_words_import_no_game() -> None:
    """Seats may use the words without the playing layer (issue 36)."""
    code = (
        "import sys, sandbox.words, sandbox.words.rules; "
        "print(sorted(m for m in sys.modules if m.startswith('sandbox.games')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
