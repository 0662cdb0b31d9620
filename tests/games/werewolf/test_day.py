"""The day: WW-11 (dawn, last words), WW-12 (discussion and bidding), WW-13
(softened words), WW-14 (voting), WW-15 (exile), WW-16 (the dead)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice
from sandbox.games.werewolf.requests import soften
from tests.games.werewolf.helpers import (
    DOCTOR,
    SEER,
    answer_step,
    decisions,
    new_game,
    night,
    of_kind,
    request_of,
    talk,
    vote,
)


@pytest.mark.parametrize(
    ("reveal", "shown"), [("role", "villager"), ("team", "village"), ("none", None)]
)
def test_ww11_dawn_says_what_reveal_on_death_allows(reveal: str, shown: str | None) -> None:
    game = new_game(reveal_on_death=reveal)
    dawn = of_kind(night(game, kill=6), "werewolf.dawn")[0]
    assert (dawn.victim, dawn.revealed) == (6, shown)
    assert dawn.visibility().scope == "public"


def test_ww11_the_night_victim_speaks_last_words_right_after_dawn() -> None:
    game = new_game(last_words=True)
    night(game, kill=6)
    assert [(r.seat, r.decision) for r in game.pending()] == [(6, "last_words")]
    game.submit(game.pending()[0].id, {"speech": "I was killed", "accuse": [1]})
    words = next(e for e in game.events if e.kind == "werewolf.last_words")
    assert (words.cause, words.shown, words.accuse) == ("night", "I was eliminated", (1,))
    assert decisions(game) == {"speech"}


def test_ww11_an_exiled_seat_speaks_last_words_then_night_falls() -> None:
    game = new_game(last_words=True, wolf_all_abstain="nobody")
    night(game, kill=None)
    talk(game)
    vote(game, {s: 5 for s in range(1, 9)})
    assert [(r.seat, r.decision) for r in game.pending()] == [(5, "last_words")]
    answer_step(game)
    assert game.events[-2].kind == "werewolf.night"  # then core.step


def test_ww11_no_last_words_when_the_death_ends_the_game() -> None:
    # 6 seats: 1 werewolf, seer 2, doctor 3; the exile of the only werewolf ends it.
    game = new_game(
        players=6,
        roles={1: "werewolf", 2: "seer", 3: "doctor"},
        werewolves=1,
        last_words=True,
        wolf_all_abstain="nobody",
    )
    night(game, kill=None)
    talk(game)
    vote(game, {s: 1 for s in range(1, 7)})
    assert game.over and not [e for e in game.events if e.kind == "werewolf.last_words_turn"]


def test_ww12_round_robin_speaks_in_rounds_from_the_starting_seat() -> None:
    game = new_game(rounds=2, first_speaker="fixed")
    night(game, kill=5)
    order = next(e for e in game.events if e.kind == "werewolf.speaking_order")
    assert order.order == (1, 2, 3, 4, 6, 7, 8) and order.rounds == 2
    speakers = []
    while decisions(game) == {"speech"}:
        speakers.append(game.pending()[0].seat)
        answer_step(game)
    assert speakers == [1, 2, 3, 4, 6, 7, 8] * 2
    assert decisions(game) == {"vote"}


def test_ww12_random_first_speaker_is_a_seeded_draw_with_wrapping() -> None:
    starts = Counter()
    for seed in range(30):
        game = new_game(seed, first_speaker="random")
        night(game, kill=5)
        order = next(e for e in game.events if e.kind == "werewolf.speaking_order").order
        living = [1, 2, 3, 4, 6, 7, 8]
        i = living.index(order[0])
        assert list(order) == living[i:] + living[:i]
        starts[order[0]] += 1
    assert len(starts) > 3


def test_ww12_rotate_moves_to_the_next_living_seat_after_yesterdays_first() -> None:
    game = new_game(first_speaker="rotate", all_abstain="nobody", wolf_all_abstain="nobody")
    firsts = []
    for kill in (None, 6, None):
        night(game, kill=kill)
        firsts.append([e for e in game.events if e.kind == "werewolf.speaking_order"][-1].order[0])
        talk(game)
        vote(game, {})
    assert firsts == [1, 2, 3]


def test_ww12_bidding_first_turn_everyone_bids_then_the_last_speaker_may_not() -> None:
    game = new_game(discussion="bidding", turns=3)
    night(game, kill=5)
    assert sorted(r.seat for r in game.pending()) == [1, 2, 3, 4, 6, 7, 8]
    answer_step(game, lambda r: {"bid": 4 if r.seat == 7 else 1})
    floor = [e for e in game.events if e.kind == "werewolf.floor"][-1]
    assert (floor.seat, floor.drawn) == (7, False) and floor.visibility().scope == "public"
    bids = [e for e in game.events if e.kind == "werewolf.bids"][-1]
    assert bids.visibility().scope == "referee"
    assert [(r.seat, r.decision) for r in game.pending()] == [(7, "speech")]
    answer_step(game, lambda r: {"speech": "hello"})
    assert 7 not in {r.seat for r in game.pending()} and decisions(game) == {"bid"}
    talk(game)
    speeches = [e for e in game.events if e.kind == "werewolf.speech"]
    assert len(speeches) == 3 and decisions(game) == {"vote"}


def test_ww12_a_bidding_tie_counts_twice_the_seats_the_previous_speech_named() -> None:
    wins: Counter[int] = Counter()
    for seed in range(300):
        game = new_game(seed, discussion="bidding", turns=2)
        night(game, kill=5)
        answer_step(game, lambda r: {"bid": 4 if r.seat == 8 else 0})
        answer_step(game, lambda r: {"speech": "", "accuse": [6]})  # seat 8 names seat 6
        answer_step(game, lambda r: {"bid": 4 if r.seat in (6, 7) else 0})
        wins[[e for e in game.events if e.kind == "werewolf.floor"][-1].seat] += 1
    assert set(wins) == {6, 7}
    assert 1.5 < wins[6] / wins[7] < 2.7  # about 2 to 1


def test_ww12_speech_limit_claims_and_passes() -> None:
    game = new_game(speech_chars=20)
    night(game, kill=5)
    request = game.pending()[0]
    with pytest.raises(IllegalDecision):  # never cut: refused
        game.submit(request.id, {"speech": "x" * 21})
    with pytest.raises(IllegalDecision) as caught:
        game.submit(request.id, {"speech": "", "accuse": [3], "vouch": [3]})
    assert caught.value.rule == "WW-12"
    game.submit(request.id, {"speech": "", "claim": "seer", "accuse": [8, 5], "vouch": [2]})
    speech = next(e for e in game.events if e.kind == "werewolf.speech")
    assert (speech.text, speech.claim, speech.accuse, speech.vouch) == ("", "seer", (5, 8), (2,))


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("We must kill seat 3", "We must eliminate seat 3"),
        ("KILL! Killers killed, killing", "ELIMINATE! Eliminators eliminated, eliminating"),
        (
            "lynch, lynches, lynched, lynching, Lyncher, lynchers",
            "exile, exiles, exiled, exiling, Exiler, exilers",
        ),
        (
            "Murder murders murdered murdering murderer MURDERERS",
            "Remove removes removed removing remover REMOVERS",
        ),
        ("skill, overkill, killjoy and skilled", "skill, overkill, killjoy and skilled"),
    ],
)
def test_ww13_softened_words_keep_form_and_case(written: str, shown: str) -> None:
    assert soften(written) == shown


def test_ww13_others_see_the_softened_speech_the_transcript_keeps_both() -> None:
    game = new_game()
    night(game, kill=5)
    seat = game.pending()[0].seat
    answer_step(game, lambda r: {"speech": "Kill seat 2"})
    speech = next(e for e in game.events if e.kind == "werewolf.speech")
    assert (speech.text, speech.shown) == ("Kill seat 2", "Eliminate seat 2")
    heard = next(h for h in game.view(8).history if h.kind == "werewolf.speech")
    assert heard.speech == "Eliminate seat 2" and "Kill" not in str(heard.facts)
    assert seat == 1
    plain = new_game(soften_words=False)
    night(plain, kill=5)
    answer_step(plain, lambda r: {"speech": "Kill seat 2"})
    assert next(e for e in plain.events if e.kind == "werewolf.speech").shown == "Kill seat 2"


def ballot_options(game: Any, seat: int) -> tuple[Any, ...]:
    field = request_of(game, seat).field("target")
    assert isinstance(field, Choice)
    return field.legal()


def test_ww14_sequential_ballots_from_a_seeded_start_each_seeing_the_earlier() -> None:
    starts = set()
    for seed in range(15):
        game = new_game(seed)
        night(game, kill=5)
        talk(game)
        opened = next(e for e in game.events if e.kind == "werewolf.vote_opened")
        living = [1, 2, 3, 4, 6, 7, 8]
        i = living.index(opened.order[0])
        assert list(opened.order) == living[i:] + living[:i]
        starts.add(opened.order[0])
        first, second = opened.order[:2]
        assert [r.seat for r in game.pending()] == [first]
        game.submit(game.pending()[0].id, {"target": 8})
        assert game.view(second).public["ballots_today"] == {str(first): 8}
        assert [r.seat for r in game.pending()] == [second]
    assert len(starts) > 2


def test_ww14_sealed_ballots_are_asked_at_once_and_revealed_together() -> None:
    game = new_game(day_vote="sealed")
    night(game, kill=5)
    talk(game)
    assert sorted(r.seat for r in game.pending()) == [1, 2, 3, 4, 6, 7, 8]
    vote(game, {1: 8, 2: 8})
    ballots = [e for e in game.events if e.kind == "werewolf.ballots"]
    assert len(ballots) == 1 and len(ballots[0].ballots) == 7
    assert ballots[0].visibility().scope == "public"


def test_ww14_self_vote_and_abstain_rulings_shape_the_options() -> None:
    game = new_game(day_vote="sealed")
    night(game, kill=5)
    talk(game)
    assert set(ballot_options(game, 3)) == {1, 2, 3, 4, 6, 7, 8, None}
    strict = new_game(day_vote="sealed", self_vote=False, abstain=False)
    night(strict, kill=5)
    talk(strict)
    assert set(ballot_options(strict, 3)) == {1, 2, 4, 6, 7, 8}
    for bad, rule in ((3, "WW-14"), (None, "WW-14"), (5, "WW-14")):
        with pytest.raises(IllegalDecision) as caught:
            strict.submit(request_of(strict, 3).id, {"target": bad})
        assert caught.value.rule == rule


def test_ww15_plurality_exiles_the_most_voted_with_its_role() -> None:
    game = new_game(reveal_on_exile="role")
    night(game, kill=5)
    talk(game)
    events = vote(game, {1: 8, 2: 8, 3: 1})
    exiled = of_kind(events, "werewolf.exiled")[0]
    assert (exiled.seat, exiled.votes, exiled.how, exiled.revealed) == (8, 2, "votes", "villager")
    assert 8 not in game.state.alive


@pytest.mark.parametrize(("tie", "expected"), [("random", "tie_draw"), ("nobody", "tie")])
def test_ww15_a_plurality_tie_is_drawn_or_exiles_nobody(tie: str, expected: str) -> None:
    game = new_game(tie=tie)
    night(game, kill=5)
    talk(game)
    events = vote(game, {1: 8, 2: 7})
    if expected == "tie_draw":
        assert of_kind(events, "werewolf.exiled")[0].seat in (7, 8)
    else:
        assert of_kind(events, "werewolf.no_exile")[0].reason == "tie"


@pytest.mark.parametrize(
    ("rule", "expected"), [("random", "abstain_draw"), ("nobody", "all_abstained")]
)
def test_ww15_everyone_abstaining_is_drawn_or_exiles_nobody(rule: str, expected: str) -> None:
    game = new_game(all_abstain=rule)
    night(game, kill=5)
    talk(game)
    events = vote(game, {})
    if expected == "abstain_draw":
        assert of_kind(events, "werewolf.exiled")[0].how == "abstain_draw"
    else:
        assert of_kind(events, "werewolf.no_exile")[0].reason == "all_abstained"


def test_ww15_majority_needs_more_than_half_of_the_living() -> None:
    game = new_game(exile_rule="majority", tie="random", all_abstain="random")
    night(game, kill=5)  # 7 living
    talk(game)
    assert of_kind(vote(game, {1: 8, 2: 8, 3: 8}), "werewolf.no_exile")[0].reason == "no_majority"
    night(game, kill=6, protect=6)  # saved: still 7 living
    talk(game)
    exiled = of_kind(vote(game, {1: 8, 2: 8, 3: 8, 4: 8}), "werewolf.exiled")[0]
    assert (exiled.seat, exiled.votes) == (8, 4)


@pytest.mark.parametrize(("reveal", "shown"), [("team", "werewolves"), ("none", None)])
def test_ww15_reveal_on_exile(reveal: str, shown: str | None) -> None:
    game = new_game(reveal_on_exile=reveal)
    night(game, kill=5)
    talk(game)
    assert of_kind(vote(game, {s: 1 for s in range(2, 9)}), "werewolf.exiled")[0].revealed == shown


def test_ww16_the_dead_never_decide_and_see_nothing_private() -> None:
    game = new_game(all_abstain="nobody")
    night(game, kill=DOCTOR)
    talk(game)
    vote(game, {s: 1 for s in range(2, 9)})  # werewolf 1 exiled
    start = len(game.events)
    night(game, kill=6, inspect=2)
    asked = {e.seat for e in game.events[start:] if e.kind == "core.decision"}
    assert not asked & {1, DOCTOR}
    private = [e for e in game.events[start:] if e.visibility().scope == "seats"]
    assert private and not any(
        e.visibility().visible_to(1) for e in private if e.kind != "core.decision"
    )
    assert any(e.kind == "werewolf.wolf_votes" and e.visibility().seats == {2} for e in private)
    assert SEER in game.state.alive
