"""A seat's card in plain words (issue 38, item 3): "You are a werewolf, seat
2. Your partner: seat 8." and what it did or learned night by night as
sentences, never a row of raw fields ("kills: night 1, target 4, how votes"),
in both languages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandbox.core.words import Lang
from sandbox.games.registry import get_variant
from sandbox.transcript import Transcript, read_transcript
from sandbox.viewer.timeline import card_versions
from sandbox.words import lang, variant_words
from tests.viewer.games import played_transcript

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "docs" / "sample" / "killer-sample.jsonl"


def card(transcript: Transcript, seat: int, language: str) -> dict[str, str]:
    """The seat's last card, as its page shows it."""
    variant = get_variant(transcript.variant)
    words = variant_words(variant)
    assert words is not None and words.card is not None
    private: Any = card_versions(transcript, seat)[-1][1]
    L: Lang = lang(language, variant)
    return dict(words.card(private, L))


def test_a_werewolf_card_in_sentences(tmp_path: Path) -> None:
    game = played_transcript(tmp_path, "werewolf", 3)  # wolves 2 and 8, seer 3, doctor 5
    wolf = card(game, 2, "en")
    assert wolf["Who you are"] == "You are a werewolf, seat 2. Your partner: seat 8."
    assert wolf["Kills so far"] == "Night 1: seat 4; night 2: seat 1."
    assert not any("target" in v or "how" in v for v in wolf.values())
    seer = card(game, 3, "en")
    assert seer["Who you are"] == "You are a seer of the village team, seat 3."
    assert seer["Checks so far"] == "Night 1: seat 6 is a villager; night 2: seat 1 is a villager."
    doctor = card(game, 5, "en")
    assert doctor["Protected so far"] == "Night 1: seat 5." and doctor["Saves so far"] == "none yet"
    zh = card(game, 2, "zh")
    assert zh["你的身份"] == "你是2号，狼人。你的同伴：8号。"
    assert zh["已杀"] == "第1夜：4号；第2夜：1号。"
    assert card(game, 3, "zh")["你的身份"] == "你是3号，预言家（好人阵营）。"


def test_a_killer_card_in_sentences() -> None:
    game = read_transcript(SAMPLE)  # killers 1, 2, 11; police 3, 5, 6
    police = card(game, 5, "en")
    assert police["Who you are"] == "You are a police officer, seat 5. Your partners: seats 3, 6."
    assert police["Checks so far"] == "Night 1: seat 1 is a killer; night 2: seat 11 is a killer."
    assert police["Your night opinions"] == "Night 1: check seat 1; night 2: check seat 11."
    assert card(game, 4, "en")["Who you are"] == "You are a civilian, seat 4."
    assert card(game, 1, "zh")["你的身份"] == "你是1号，杀手。你的同伴：2、11号。"


def test_a_four_factions_card_in_sentences(tmp_path: Path) -> None:
    game = played_transcript(tmp_path, "four_factions", 3)  # seat 1 army's elite
    assert card(game, 1, "en")["Who you are"] == "You are an elite of the army faction, seat 1."
    regular = card(game, 6, "en")["Who you are"]
    assert regular == "You are a regular of the army faction, seat 6. Your elite: seat 1."
    assert card(game, 6, "zh")["你的身份"] == "你是6号，军队非最强精英。本阵营最强精英：1号。"
