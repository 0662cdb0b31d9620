"""Structured claims in speeches and last words (KG-14: recorded as said, never
confirmed): the claimed role and the seats accused and vouched for."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import event_from_json
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice
from sandbox.games.killer.events import LastWords, Speech
from tests.games.killer.helpers import KILLER, new_game, night, of_kind, request_of

CLAIMS = ("claim", "accuse", "vouch")


def day_one(kill: int = 7) -> Game:
    """A 12-seat game (killers 1-3, police 4-6) at seat ``kill``'s last words, day 1."""
    game = new_game()
    night(game, kill=kill)
    return game


def to_first_speech(game: Game) -> DecisionRequest:
    while game.pending()[0].decision == "last_words":
        game.submit_fallback(game.pending()[0].id, "test")
    request = game.pending()[0]
    assert request.decision == "speech"
    return request


def field(request: DecisionRequest, name: str) -> Any:
    return request.field(name)


def test_speech_offers_optional_claim_fields_over_living_other_seats() -> None:
    game = day_one(kill=7)
    request = to_first_speech(game)  # seat 8 opens day 1 (KG-8: after the victim)
    assert [f.name for f in request.fields] == ["speech", *CLAIMS]
    claim = field(request, "claim")
    assert isinstance(claim, Choice) and claim.optional
    assert claim.options == ("none", "police", "killer", "civilian")
    for name in ("accuse", "vouch"):
        seats = field(request, name)
        assert isinstance(seats, MultiChoice) and seats.optional
        assert seats.options == tuple(s for s in range(1, 13) if s not in (7, request.seat))
        assert seats.max_items == len(seats.options)


def test_last_words_name_any_other_living_seat() -> None:
    game = day_one(kill=7)
    request = request_of(game, 7)
    assert request.decision == "last_words"
    assert [f.name for f in request.fields] == ["speech", *CLAIMS]
    assert field(request, "accuse").options == tuple(s for s in range(1, 13) if s != 7)


@pytest.mark.rule("KG-14")
def test_a_speech_records_its_claims_sorted_and_every_seat_sees_them() -> None:
    game = day_one()
    request = to_first_speech(game)
    answer = {"speech": "I am police.", "claim": "police", "accuse": [3, 1], "vouch": [12, 4]}
    events = game.submit(request.id, answer)
    (speech,) = of_kind(events, "killer.speech")
    assert (speech.claim, speech.accuse, speech.vouch) == ("police", (1, 3), (4, 12))
    assert speech.to_json()["data"]["accuse"] == [1, 3]
    for seat in (1, 4, 9):  # a killer, a police player, a civilian
        item = next(h for h in game.view(seat).history if h.kind == "killer.speech")
        assert item.speech == "I am police." and item.speaker == request.seat
        facts = {k: item.facts[k] for k in CLAIMS}
        assert facts == {"claim": "police", "accuse": [1, 3], "vouch": [4, 12]}


@pytest.mark.rule("KG-14")
def test_a_false_claim_is_recorded_and_never_confirmed() -> None:
    game = day_one()
    request = to_first_speech(game)  # seat 8, a civilian
    before = dict(game.roles())
    events = game.submit(request.id, {"speech": "", "claim": "police", "accuse": [4]})
    assert [e.kind for e in events] == ["core.decision", "killer.speech", "core.step"]
    assert dict(game.roles()) == before
    assert game.view(4).private["role"] == "police"


@pytest.mark.rule("KG-14")
def test_left_out_claim_fields_mean_none_and_no_seats() -> None:
    game = day_one()
    request = to_first_speech(game)
    events = game.submit(request.id, {"speech": "pass"})
    (speech,) = of_kind(events, "killer.speech")
    assert (speech.claim, speech.accuse, speech.vouch) == ("none", (), ())
    (made,) = of_kind(events, "core.decision")
    assert dict(made.payload) == {"speech": "pass"}  # recorded as given


def test_the_fallback_claims_nothing() -> None:
    game = day_one()
    events = game.submit_fallback(request_of(game, 7).id, "timeout")
    (words,) = of_kind(events, "killer.last_words")
    assert (words.text, words.claim, words.accuse, words.vouch) == ("", "none", (), ())


@pytest.mark.rule("KG-6", "KG-14")
def test_last_words_record_their_claims() -> None:
    game = day_one()
    answer = {"speech": "Seat 2 did it.", "claim": "civilian", "accuse": [2], "vouch": []}
    events = game.submit(request_of(game, 7).id, answer)
    (words,) = of_kind(events, "killer.last_words")
    assert (words.claim, words.accuse, words.vouch) == ("civilian", (2,), ())
    item = next(h for h in game.view(5).history if h.kind == "killer.last_words")
    assert item.facts == {"claim": "civilian", "accuse": [2], "vouch": []}


@pytest.mark.parametrize("decision", ["last_words", "speech"])
def test_a_seat_both_accused_and_vouched_for_is_refused_citing_kg14(decision: str) -> None:
    game = day_one()
    request = request_of(game, 7) if decision == "last_words" else to_first_speech(game)
    answer = {"speech": "", "claim": "none", "accuse": [2, 5], "vouch": [5]}
    count = len(game.events)
    with pytest.raises(IllegalDecision, match=r"\[KG-14\] Seat\(s\) \[5\] are both accused"):
        game.submit(request.id, answer)
    assert len(game.events) == count  # nothing recorded


@pytest.mark.parametrize(("seats", "rule"), [([8], "KG-8"), ([7], "KG-8"), ([13], "KG-8")])
def test_accusing_oneself_a_dead_or_unknown_seat_is_refused(seats: list[int], rule: str) -> None:
    game = day_one(kill=7)
    request = to_first_speech(game)
    assert request.seat == 8
    with pytest.raises(IllegalDecision, match=rf"\[{rule}\] Field 'accuse' has values"):
        game.submit(request.id, {"speech": "", "accuse": seats})


def test_an_unknown_claimed_role_is_refused_with_the_options() -> None:
    game = day_one()
    request = to_first_speech(game)
    with pytest.raises(IllegalDecision, match=r"Legal options — claim: \[none, police"):
        game.submit(request.id, {"speech": "", "claim": "judge"})


@pytest.mark.rule("KG-14")
def test_check_rejects_claims_outside_the_living_other_seats() -> None:
    """The referee's second line (beyond the request's shape) cites the request's rule."""
    game = day_one()
    request = to_first_speech(game)
    with pytest.raises(IllegalDecision, match=r"\[KG-8\] vouch = \[8\]"):
        KILLER.rules.check(game.state, request, {"speech": "", "vouch": (8,)})


def test_describe_shows_claims_and_plain_speeches_unchanged() -> None:
    said = Speech(1, 8, "hello", "day", "police", (1, 3), (4,))
    # The log line is the English sentence (claims in it, KG-14), the speech quoted after it.
    assert KILLER.describe_event(said) == (
        'Seat 8 says (accuses seats 1, 3; vouches for seat 4; claims police): "hello"'
    )
    assert KILLER.describe_event(Speech(1, 8, "", "day")) == "Seat 8 passes."
    assert KILLER.describe_event(LastWords(1, 7, "bye", vouch=(2,))) == (
        'Seat 7\'s last words (vouches for seat 2): "bye"'
    )


def test_transcripts_written_before_the_claims_still_load() -> None:
    old = {
        "kind": "killer.speech",
        "vis": "public",
        "data": {"day": 1, "seat": 8, "text": "hi", "context": "day"},
    }
    event = event_from_json(old)
    assert isinstance(event, Speech)
    assert (event.claim, event.accuse, event.vouch) == ("none", (), ())
