"""Day rules: KG-6 announcement, KG-7 quota, KG-8 order, KG-9 vote, KG-10 ties,
KG-14 the dead (KG-13 surrender: test_concede.py)."""

from __future__ import annotations

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice
from tests.games.killer.helpers import (
    KILLER,
    answer_step,
    new_game,
    night,
    of_kind,
    request_of,
    talk_until_vote,
    vote,
)


def speaking_order(game: Game) -> list[int]:
    order = []
    while game.pending()[0].decision == "last_words":
        answer_step(game, None)
    while game.pending()[0].decision == "speech":
        order.append(game.pending()[0].seat)
        answer_step(game, None)
    return order


def next_night(game: Game, kill: int | None) -> None:
    while game.pending()[0].decision != "kill_opinion":
        answer_step(game, None)
    night(game, kill)


@pytest.mark.rule("KG-6", "KG-9")
@pytest.mark.parametrize("reveal", [False, True])
def test_dawn_and_vote_out_announce_the_role_only_with_the_option(reveal: bool) -> None:
    game = new_game(reveal_role_on_death=reveal)
    events = night(game, kill=7)
    (dawn,) = of_kind(events, "killer.dawn")
    assert dawn.victim == 7 and dawn.role == ("civilian" if reveal else None)
    events = talk_until_vote(game)
    events += vote(game, {s: 4 for s in (1, 2, 3)})
    (out,) = of_kind(events, "killer.voted_out")
    assert out.seat == 4 and out.role == ("police" if reveal else None)
    dead = game.view(9).public["dead"]
    assert [(d["seat"], d["cause"], d["role"]) for d in dead] == [
        (7, "night", "civilian" if reveal else None),
        (4, "vote", "police" if reveal else None),
    ]


@pytest.mark.rule("KG-7", "KG-11")
def test_last_words_quota_counts_night_and_vote_deaths_together() -> None:
    game = new_game()
    night(game, kill=7)  # death 1: last words
    assert request_of(game, 7).decision == "last_words"
    game.submit(request_of(game, 7).id, {"speech": "I suspect seat 2."})
    talk_until_vote(game)
    vote(game, {1: 8, 2: 8})  # death 2: last words
    assert request_of(game, 8).decision == "last_words"
    next_night(game, kill=9)  # death 3: last words (the quota is 3)
    assert request_of(game, 9).decision == "last_words"
    assert game.view(10).public["last_words_used"] == 3
    talk_until_vote(game)
    events = vote(game, {1: 10, 2: 10})  # death 4: quota spent, no last words
    assert of_kind(events, "killer.voted_out")[0].seat == 10
    assert game.pending()[0].decision == "kill_opinion"
    assert game.view(11).public["last_words_used"] == 3
    spoken = [e.seat for e in game.events if e.kind == "killer.last_words"]
    assert spoken == [7, 8, 9]


@pytest.mark.rule("KG-7")
def test_last_words_quota_is_four_with_four_killers() -> None:
    game = new_game(players=15)
    assert game.view(1).public["last_words_quota"] == 4


@pytest.mark.rule("KG-8")
def test_speeches_start_after_the_victim_and_wrap() -> None:
    game = new_game()
    night(game, kill=5)
    assert speaking_order(game) == [6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4]
    game2 = new_game()
    night(game2, kill=12)
    assert speaking_order(game2) == list(range(1, 12))


@pytest.mark.rule("KG-8", "KG-11")
def test_without_a_victim_day_one_starts_at_seat_one_then_after_the_previous_starter() -> None:
    game = new_game()
    night(game, kill=None)
    assert speaking_order(game) == list(range(1, 13))
    vote(game, {})
    night(game, kill=None)
    assert speaking_order(game) == [*range(2, 13), 1]
    vote(game, {})
    night(game, kill=3)  # a victim again: after the victim
    assert speaking_order(game)[0] == 4


@pytest.mark.rule("KG-9")
def test_ballots_are_sealed_until_all_are_in_then_public_with_every_ballot() -> None:
    game = new_game()
    night(game, kill=None)
    talk_until_vote(game)
    requests = game.pending()
    assert [r.seat for r in requests] == list(range(1, 13)) and requests[0].rule == "KG-9"
    field = requests[0].field("target")
    assert isinstance(field, Choice) and 1 not in field.options  # not oneself
    game.submit(requests[0].id, {"target": 9})
    assert not of_kind(game.events, "killer.ballots")
    for seat in range(2, 13):
        assert all(
            e.seat == seat or e.kind != "core.decision"
            for _, e in game.visible_events(seat)
            if e.kind == "core.decision"
        )
    for request in requests[1:]:
        game.submit(request.id, {"target": 9 if request.seat < 8 else None})
    (ballots,) = of_kind(game.events, "killer.ballots")
    assert ballots.ballots["1"] == 9 and ballots.ballots["12"] is None
    assert len(ballots.ballots) == 12 and ballots.tally == {"9": 7}
    assert ballots.visibility().scope == "public"
    assert game.view(5).public["ballots_today"] == [{"round": 0, "ballots": dict(ballots.ballots)}]


@pytest.mark.rule("KG-9", "KG-11")
def test_nobody_votes_nobody_out() -> None:
    game = new_game()
    night(game, kill=None)
    talk_until_vote(game)
    events = vote(game, {})
    assert of_kind(events, "killer.nobody_out") and not of_kind(events, "killer.voted_out")
    assert len(game.state.alive) == 12 and game.pending()[0].decision == "kill_opinion"


@pytest.mark.rule("KG-9", "KG-14")
def test_the_dead_cannot_be_voted_for_and_never_act() -> None:
    game = new_game()
    night(game, kill=7)
    answer_step(game, None)  # 7's last words
    talk_until_vote(game)
    assert 7 not in [r.seat for r in game.pending()]
    with pytest.raises(IllegalDecision):
        game.submit(request_of(game, 1).id, {"target": 7})
    dead_request = request_of(game, 1).__class__(
        "x", 7, "vote", "KG-9", "vote", request_of(game, 1).fields
    )
    with pytest.raises(IllegalDecision, match=r"\[KG-14\]"):
        KILLER.rules.check(game.state, dead_request, {"target": 8})


@pytest.mark.rule("KG-10")
def test_tie_chain_step_by_step_to_a_forced_draw() -> None:
    game = new_game()
    night(game, kill=None)
    talk_until_vote(game)
    events = vote(game, {1: 7, 2: 8})
    (tied,) = of_kind(events, "killer.tied")
    assert (tied.round, tied.tied) == (1, (7, 8))
    # Step 1: the tied speak again, then everyone revotes among the tied.
    assert speaking_order(game) == [7, 8]
    revote = game.pending()
    assert len(revote) == 12 and revote[0].rule == "KG-10"
    seven = request_of(game, 7).field("target")
    nine = request_of(game, 9).field("target")
    assert isinstance(seven, Choice) and seven.options == (8,)
    assert isinstance(nine, Choice) and nine.options == (7, 8)
    events = vote(game, {9: 7, 10: 8})
    (tied,) = of_kind(events, "killer.tied")
    assert (tied.round, tied.tied) == (2, (7, 8))
    # Step 2: everyone except the tied speaks once, then a last revote among the tied.
    assert speaking_order(game) == [1, 2, 3, 4, 5, 6, 9, 10, 11, 12]
    assert all(r.rule == "KG-10" for r in game.pending())
    events = vote(game, {1: 7, 2: 8})
    # Step 3: still tied → forced draw.
    assert of_kind(events, "killer.forced_draw")
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "forced_draw"
    assert set(outcome.results.values()) == {"draw"}


@pytest.mark.rule("KG-10")
def test_a_revote_can_break_the_tie() -> None:
    game = new_game()
    night(game, kill=None)
    talk_until_vote(game)
    vote(game, {1: 7, 2: 8})
    speaking_order(game)
    events = vote(game, {1: 7, 2: 7, 9: 8})
    assert of_kind(events, "killer.voted_out")[0].seat == 7


@pytest.mark.rule("KG-3", "KG-4", "KG-8", "KG-9")
def test_fallbacks_are_no_opinion_abstain_pass_and_no_concede() -> None:
    game = new_game()
    events = answer_step(game, None)
    assert of_kind(events, "killer.kill_chosen")[0].target is None
    events = answer_step(game, None)
    assert of_kind(events, "killer.check")[0].suspect is None
    events = answer_step(game, None)
    assert of_kind(events, "killer.speech")[0].text == ""
    talk_until_vote(game)
    events = answer_step(game, None)
    assert set(of_kind(events, "killer.ballots")[0].ballots.values()) == {None}
    fake = game.pending()[0]
    assert KILLER.rules.fallback(game.state, fake) == {"target": None}
