"""The baseline bots talk like players (issue 20, item 6): varied sentences in
English and Chinese, grounded in what their seat saw, with structured claims
that match their words; and the words never move a decision."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.games.killer import evidence as ev
from sandbox.games.phrasebook import Phrasebook
from sandbox.games.registry import get_variant
from tests.games.bots.harness import play

SEAT_RE = re.compile(r"(?:[Ss]eat (\d+))|(?:(\d+)号)")
RAW = {"killer": {"players": 12}, "werewolf": {}, "four_factions": {}}


def _bench() -> ModuleType:
    path = Path(__file__).parents[3] / "bench" / "bench_bots.py"
    spec = importlib.util.spec_from_file_location("bench_bots", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_bots"] = module
    spec.loader.exec_module(module)
    return module


def _speeches(game: Game) -> list[Any]:
    kinds = game.variant.info.speech_kinds
    return [e for e in game.events if e.kind in kinds]


def _text(event: Any) -> str:
    return str(getattr(event, "text", None) or getattr(event, "speech", None) or "")


def _decisions(game: Game) -> list[tuple[str, dict[str, Any]]]:
    """Every decision with its words taken out."""
    made = [e for e in game.events if e.kind == "decision"]
    return [
        (e.request_id, {k: v for k, v in e.payload.items() if k != "speech"})
        for e in made
        if not e.fallback
    ]


def test_phrasebook_is_seeded_and_falls_back_to_english() -> None:
    phrases = {"hi": {"en": ["a {x}", "b {x}", "c {x}"]}, "zh": {"en": ["x"], "zh": ["好"]}}
    first = [Phrasebook(phrases, "en", 7).say("hi", x=1) for _ in range(3)]
    assert len(set(first)) == 1  # the same seed says the same thing
    book = Phrasebook(phrases, "zh", 7)
    assert book.say("hi", x=2) in {"a 2", "b 2", "c 2"}  # no Chinese: English
    assert book.say("zh") == "好"
    assert book.join(["一。", "二。"]) == "一。二。"
    assert Phrasebook(phrases, "en", 7).join(["One.", "", "Two."]) == "One. Two."


@pytest.mark.parametrize("variant", ["killer", "werewolf", "four_factions"])
def test_words_never_move_a_decision(variant: str) -> None:
    """The same seed in English and in Chinese plays the same game."""
    for seed in range(3):
        en, _ = play(variant, RAW[variant], seed, language="en")
        zh, _ = play(variant, RAW[variant], seed, language="zh")
        assert _decisions(en) == _decisions(zh)
        said_en = [_text(e) for e in _speeches(en) if _text(e)]
        said_zh = [_text(e) for e in _speeches(zh) if _text(e)]
        assert said_en and said_zh and said_en != said_zh


@pytest.mark.parametrize("variant", ["killer", "werewolf"])
def test_structured_claims_are_named_in_the_words(variant: str) -> None:
    """KG-14 / WW-12: every seat a bot's speech accuses or vouches for is named in it."""
    for language in ("en", "zh"):
        for seed in range(4):
            game, _ = play(variant, RAW[variant], seed, language=language)
            for event in _speeches(game):
                named = {int(a or b) for a, b in SEAT_RE.findall(_text(event))}
                claimed = set(event.accuse) | set(event.vouch)
                assert claimed <= named, (_text(event), claimed)
                if language == "zh":
                    assert "Seat" not in _text(event) and "seat" not in _text(event)


def test_twenty_killer_games_are_varied_and_grounded() -> None:
    """Done-when: in 20 seeded Killer games at least half of the bots' speeches are
    distinct and most refer to something that happened (bench_bots' own figures)."""
    bench = _bench()
    tally = bench.Tally()
    for seed in range(20):
        game, fallbacks = play("killer", RAW["killer"], seed)
        assert fallbacks == 0
        bench.speech_figures(game, tally)
    assert tally.said > 200
    assert sum(tally.distinct) / len(tally.distinct) >= 0.5
    assert tally.refers / tally.said > 0.5


def test_killer_bots_claim_reveal_and_answer() -> None:
    """A police bot reveals a killer it found; a killer bot sometimes claims police;
    a seat accused earlier in the day answers its accuser by seat."""
    revealed = faked = answered = 0
    for seed in range(20):
        game, _ = play("killer", RAW["killer"], seed)
        roles = game.roles()
        accusers: dict[tuple[int, int], set[int]] = {}  # (day, accused) -> accusers
        for event in _speeches(game):
            if event.claim == "police":
                if roles[event.seat] == "police" and any(
                    roles[s] == "killer" for s in event.accuse
                ):
                    revealed += 1
                if roles[event.seat] == "killer":
                    faked += 1
            mine = accusers.get((event.day, event.seat), set())
            named = {int(a or b) for a, b in SEAT_RE.findall(event.text)}
            answered += bool(mine & (named - set(event.accuse) - set(event.vouch)))
            for target in event.accuse:
                accusers.setdefault((event.day, target), set()).add(event.seat)
    assert revealed > 0 and faked > 0 and answered > 0


def _item(seq: int, speaker: int, text: str, **facts: Any) -> HistoryItem:
    return HistoryItem(seq, "killer.speech", 1, "day", speaker, text, facts)


def test_evidence_reads_claims_the_same_from_structure_or_phrasebook() -> None:
    """A speech with structured claims is read from them; one without, from the
    phrasebook's sentences in its text (a person or a model who wrote no claims)."""
    structured = (
        _item(1, 2, "any words at all", claim="police", accuse=[5], vouch=[7]),
        _item(2, 3, "whatever", claim="none", accuse=[5], vouch=[]),
    )
    phrased = (
        _item(1, 2, "Seat 5 is a killer: I am police. Seat 7 is not a killer: I am police."),
        _item(2, 3, "I suspect seat 5. Pass."),
    )
    tables = [
        ev.read_table(SeatView(get_variant("killer"), 9, {}, {"dead": []}, items))
        for items in (structured, phrased)
    ]
    for table in tables:
        assert [(c.speaker, c.target, c.killer) for c in table.claims] == [
            (2, 5, True),
            (2, 7, False),
        ]
        assert table.accusations == [(3, 5, ev.W_ACCUSE)]
        assert table.words[2] == 5 and table.words[3] == 2  # statements, not words


def test_bots_answer_a_persons_police_claim() -> None:
    """A person's police claim (structured, as the seat's page sends it) is heard:
    the next civilian bot to speak names the claimant and weighs the claim."""
    from tests.games.bots.harness import answer, bots_for, context, new_game

    for seed in range(6):
        game = new_game("killer", RAW["killer"], seed)
        bots = bots_for("killer", game, seed)
        person: int | None = None
        while not game.over:
            requests = game.pending()
            speech = [r for r in requests if r.decision == "speech"]
            if person is None and speech and game.roles()[speech[0].seat] == "civilian":
                person = speech[0].seat
                named = next(s for s in game.view(person).public["living"] if s != person)
                game.submit(
                    speech[0].id,
                    {
                        "speech": f"I am police. {named} is a killer.",
                        "claim": "police",
                        "accuse": [named],
                    },
                )
                continue
            if person is not None and speech and game.roles()[speech[0].seat] != "killer":
                said = answer(bots[speech[0].seat], context(game, speech[0])).payload or {}
                text = str(said.get("speech", ""))
                if speech[0].seat != named:
                    assert f"seat {person}" in text.lower(), text
                    return
            for request in requests:
                reply = answer(bots[request.seat], context(game, request))
                game.submit(request.id, reply.payload) if reply.payload else game.submit_fallback(
                    request.id, "invalid"
                )
                break
    pytest.fail("no civilian bot spoke after the person's claim")
