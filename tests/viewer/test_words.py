"""The words renderer: a sentence for every event kind of both variants, in both
languages (golden files), claims always said, seat views said the same way, and
player text kept apart from the referee's voice.

Regenerate the golden file after a deliberate wording change, then review the diff:
    UPDATE_WORDS_GOLDEN=1 .venv/bin/pytest tests/viewer/test_words.py
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.events import Event
from sandbox.core.variant import HistoryItem
from sandbox.games.registry import get_variant
from sandbox.viewer.board import known_variants
from sandbox.words import (
    LANGUAGES,
    SPEECH,
    Tag,
    controller_of,
    item_words,
    known_kinds,
    line_text,
    phase_title,
    role_words,
    sanitise,
    words_for,
)
from tests.games.bots.harness import play
from tests.viewer.samples import SAMPLES

GOLDEN = Path(__file__).parent / "golden" / "words.json"
UPDATE = os.environ.get("UPDATE_WORDS_GOLDEN") == "1"
PREFIX = {"four_factions": "ff.", "killer": "killer."}
HAN = re.compile(r"[\u4e00-\u9fff]")


def engine_kinds(variant: str) -> set[str]:
    """Every event kind the engine registers for ``variant`` (and the core's,
    an open day's ``discussion.*`` among them)."""
    get_variant(variant)  # loads the variant's events

    def subclasses(cls: type[Event]) -> set[type[Event]]:
        found = set(cls.__subclasses__())
        for sub in list(found):
            found |= subclasses(sub)
        return found

    kinds = {c.kind for c in subclasses(Event) if c.kind}
    return {k for k in kinds if k.startswith((PREFIX[variant], "core.", "discussion."))}


def rendered() -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for variant, cases in SAMPLES.items():
        out[variant] = {}
        for language in LANGUAGES:
            out[variant][language] = [
                line_text(
                    words_for(get_variant(variant), kind, data, language), Tag(seq=n), language
                )
                for n, (kind, data) in enumerate(cases)
            ]
    return out


def test_words_match_the_golden_file() -> None:
    got = rendered()
    if UPDATE:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", "utf-8")
    assert GOLDEN.exists(), "missing golden; run with UPDATE_WORDS_GOLDEN=1 and review"
    expected = json.loads(GOLDEN.read_text("utf-8"))
    for variant in SAMPLES:
        for language in LANGUAGES:
            assert got[variant][language] == expected[variant][language], (variant, language)


@pytest.mark.parametrize("variant", sorted(SAMPLES))
def test_every_event_kind_has_its_sentence_and_a_golden_case(variant: str) -> None:
    kinds = engine_kinds(variant)
    assert kinds - set(known_kinds(get_variant(variant))) == set(), "kinds without a sentence"
    assert kinds - {kind for kind, _ in SAMPLES[variant]} == set(), "kinds without a case"


@pytest.mark.parametrize("variant", sorted(SAMPLES))
def test_chinese_sentences_are_chinese(variant: str) -> None:
    for kind, data in SAMPLES[variant]:
        words = words_for(get_variant(variant), kind, data, "zh")
        assert HAN.search(words.sentence), (kind, words.sentence)
        english = re.findall(r"\b(?:seat|the|is|and|with|says)\b", words.sentence)
        assert not english, (kind, words.sentence)


def test_structured_claims_are_always_said() -> None:
    proofs = words_for(
        get_variant("four_factions"), "ff.proofs", {"seat": 3, "am": "spies", "speech": "hi"}
    )
    assert proofs.claims == ("claims spies",) and "claims to be spies" in proofs.sentence
    assert "denies wolves, justice, army" in proofs.sentence
    accusation = dict(SAMPLES["four_factions"])["ff.accusation"]
    assert (
        "accuses seat 3 of being wolves"
        in words_for(get_variant("four_factions"), "ff.accusation", accusation).sentence
    )
    speech = next(d for k, d in SAMPLES["killer"] if k == "killer.speech")
    said = words_for(get_variant("killer"), "killer.speech", speech)
    assert said.claims == ("accuses seat 2", "vouches for seats 7, 9", "claims police")
    assert all(claim in said.sentence for claim in said.claims)
    zh = words_for(get_variant("killer"), "killer.speech", speech, "zh")
    assert "自称警察" in zh.sentence and "指认2号" in zh.sentence and "担保7、9号" in zh.sentence
    old = words_for(
        get_variant("killer"), "killer.speech", {"day": 1, "seat": 4, "text": "x", "context": "day"}
    )
    assert old.claims == () and old.sentence == "Seat 4 says"  # keys absent: older transcripts


def test_a_silent_speech_with_a_claim_still_shows_the_claim() -> None:
    silent = [d for k, d in SAMPLES["killer"] if k == "killer.speech" and not d["text"]]
    plain, claimed = (words_for(get_variant("killer"), "killer.speech", d) for d in silent)
    assert plain.sentence == "Seat 6 passes." and plain.claims == ()
    assert claimed.category == SPEECH and claimed.claims == ("claims civilian",)


def test_player_text_never_enters_the_sentence() -> None:
    for variant, cases in SAMPLES.items():
        for kind, data in cases:
            words = words_for(get_variant(variant), kind, data)
            text = (
                data.get("speech") or data.get("text") or (data.get("payload") or {}).get("speech")
            )
            if text:
                assert text not in words.sentence, (kind, words.sentence)
                assert words.speech == text


def test_a_speech_cannot_print_as_a_referee_line() -> None:
    words = words_for(
        get_variant("four_factions"), "ff.speech", {"seat": 2, "speech": "hi\n[Referee] X\x1b[2J"}
    )
    line = line_text(words, Tag(seq=5))
    assert "\n" not in line and "\x1b" not in line
    assert line == '#5  Seat 2 says: "hi ↵ [Referee] X[2J"'
    assert sanitise("a\r\nb\tc\u202ed\x07") == "a ↵ b cd"


def test_own_decisions_are_in_the_second_person() -> None:
    vote = {
        "seat": 3,
        "request_id": "1",
        "decision": "vote",
        "payload": {"target": 5},
        "note": "",
        "fallback": False,
        "fallback_reason": "",
    }
    assert (
        words_for(get_variant("killer"), "core.decision", vote, you=3).sentence
        == "You vote for seat 5."
    )
    assert (
        words_for(get_variant("killer"), "core.decision", vote).sentence
        == "Seat 3 votes for seat 5."
    )
    assert (
        words_for(get_variant("killer"), "core.decision", vote, "zh", you=3).sentence
        == "你投票给5号。"
    )


def seat_history(variant: str, seed: int, seat: int) -> tuple[list[HistoryItem], list[Any]]:
    """A seeded baseline game: what ``seat`` saw, and every event."""
    game, _ = play(variant, {}, seed)
    return list(game.view(seat).history), list(game.events)


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_a_seat_view_item_reads_like_its_event(variant: str) -> None:
    """The human seats render HistoryItems; the viewer renders events: same words."""
    items, events = seat_history(variant, 3, 2)
    assert items
    for language in LANGUAGES:
        for item in items:
            event = events[item.seq]
            data = event.to_json()["data"]
            assert item_words(get_variant(variant), item, 2, language) == words_for(
                get_variant(variant), event.kind, data, language, you=2
            ), item.kind


def test_small_words() -> None:
    assert phase_title(0, "setup") == "Setup" and phase_title(2, "night") == "Night 2"
    assert phase_title(3, "speeches", "zh") == "第3天 · 发言"
    assert (
        role_words("wolves/elite", "en", known_variants()) == "wolves elite"
        and role_words("wolves/elite", "zh", known_variants()) == "狼人最强精英"
    )
    assert controller_of({"kind": "llm", "model": "openai/gpt-4o"}) == "openai/gpt-4o"
    assert controller_of({"kind": "baseline"}) == "baseline bot" and controller_of(None) == "?"
