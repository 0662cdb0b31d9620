"""Knowledge, teams, the end and the requests: WW-3, WW-4, WW-17..WW-23."""

from __future__ import annotations

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.games.werewolf.info import INFO
from tests.games.werewolf.helpers import (
    DOCTOR,
    SEER,
    WW,
    answer_step,
    new_game,
    night,
    of_kind,
    request_of,
    talk,
    vote,
)


def test_ww3_two_teams_the_werewolves_and_the_village() -> None:
    assert INFO.sides == ("werewolves", "village")
    assert {r: WW.research.side_of(r) for r in INFO.roles} == {
        "werewolf": "werewolves",
        "seer": "village",
        "doctor": "village",
        "villager": "village",
    }


def test_ww4_each_seat_knows_its_role_and_the_pack_knows_the_pack() -> None:
    game = new_game()
    for seat in range(1, 9):
        private = game.view(seat).private
        assert private["role"] == game.roles()[seat]
        if seat in (1, 2):
            assert private["pack"] == [1, 2] and private["fellow_werewolves"] == [3 - seat]
        else:
            assert "pack" not in private
    cards = [e for e in game.events if e.kind == "werewolf.role"]
    assert all(e.visibility().seats == frozenset({e.seat}) for e in cards)
    assert game.view(5).public["lineup"] == {
        "werewolves": 2,
        "seers": 1,
        "doctors": 1,
        "villagers": 4,
    }


def test_ww17_the_end_is_checked_after_the_night_even_mid_day_numbers() -> None:
    """Three werewolves against four at 7 seats: one kill makes parity at dawn."""
    game = new_game(
        players=7,
        werewolves=3,
        seers=0,
        doctors=0,
        roles={1: "werewolf", 2: "werewolf", 3: "werewolf"},
    )
    night(game, kill=5)
    assert game.over and game.outcome().reason == "werewolf_parity"  # type: ignore[union-attr]
    kinds = [e.kind for e in game.events[-4:]]
    assert kinds == ["werewolf.dawn", "werewolf.roles_revealed", "core.step", "core.game_ended"]


def test_ww17_the_end_is_checked_after_an_exile() -> None:
    game = new_game(players=6, werewolves=1, roles={1: "werewolf", 2: "seer", 3: "doctor"})
    night(game, kill=5)
    talk(game)
    vote(game, {s: 1 for s in (2, 3, 4, 6)})
    assert game.outcome().reason == "werewolves_eliminated"  # type: ignore[union-attr]


def test_ww18_ww19_ww20_results_by_team_and_the_roles_announced() -> None:
    game = new_game(players=6, werewolves=1, roles={1: "werewolf", 2: "seer", 3: "doctor"})
    night(game, kill=5)
    talk(game)
    vote(game, {s: 1 for s in (2, 3, 4, 6)})
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.results == {1: "lose", 2: "win", 3: "win", 4: "win", 5: "win", 6: "win"}
    (reveal,) = [e for e in game.events if e.kind == "werewolf.roles_revealed"]
    assert reveal.visibility().scope == "public" and reveal.roles["1"] == "werewolf"
    assert game.view(5).public["roles"]["3"] == "doctor"  # the dead see the reveal


def test_ww21_the_day_limit_ends_after_the_last_days_vote() -> None:
    game = new_game(day_limit=1, wolf_all_abstain="nobody", all_abstain="nobody")
    night(game, kill=None)
    talk(game)
    vote(game, {})
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "day_limit"
    assert set(outcome.results.values()) == {"draw"}
    assert of_kind(game.events, "werewolf.day_limit")[0].day == 1


def test_ww22_requests_name_their_decision_and_rule() -> None:
    game = new_game(wolf_chat=True, discussion="bidding", last_words=True, turns=1)
    seen: dict[str, str] = {}
    while not game.over and len(seen) < 8:
        for request in game.pending():
            seen[request.decision] = request.rule
        answer_step(game, lambda r: {"target": 5} if r.decision == "kill" else None)
    assert seen == {
        "protect": "WW-8",
        "inspect": "WW-10",
        "wolf_message": "WW-6",
        "kill": "WW-7",
        "last_words": "WW-11",
        "bid": "WW-12",
        "speech": "WW-12",
        "vote": "WW-14",
    }
    # The ninth decision, an open day's ask (WW-12 open, OD-5), needs its own game.
    game = new_game(discussion="open")
    night(game, kill=5)
    asks = {r.decision: r.rule for r in game.pending()}
    assert asks == {"message": "WW-12, OD-5"}
    # The tenth, the graveyard's ask (WW-16 ruling, graveyard_chat), once a seat is dead.
    game = new_game(graveyard_chat=True)
    night(game, kill=5)
    while not game.over and not pending_of(game, "graveyard_message"):
        answer_step(game, lambda r: None)
    graves = {r.decision: r.rule for r in pending_of(game, "graveyard_message")}
    assert graves == {"graveyard_message": "WW-16"}
    assert set(seen) | set(asks) | set(graves) == set(INFO.decisions)


def pending_of(game: Game, decision: str) -> list[DecisionRequest]:
    return [r for r in game.pending() if r.decision == decision]


def test_ww22_an_illegal_answer_is_refused_with_the_rule_and_the_legal_options() -> None:
    game = new_game()
    with pytest.raises(IllegalDecision) as caught:
        game.submit(request_of(game, SEER).id, {"target": SEER})
    assert caught.value.rule == "WW-10"
    assert "target" in caught.value.legal and SEER not in caught.value.legal["target"]
    with pytest.raises(IllegalDecision):
        game.submit(request_of(game, DOCTOR).id, {"target": 99})


def test_ww23_fallbacks_abstain_do_nothing_pass_and_bid_zero() -> None:
    game = new_game(wolf_chat=True, discussion="bidding", turns=1)
    events = answer_step(game)  # seer and doctor fall back
    assert not of_kind(events, "werewolf.seer_result")
    assert [e.target for e in of_kind(events, "werewolf.protection")] == [None]
    answer_step(game)  # wolf 1's message
    answer_step(game)  # wolf 2's message
    messages = [e.text for e in game.events if e.kind == "werewolf.wolf_message"]
    assert messages == ["", ""]
    answer_step(game)
    answer_step(game)  # both werewolves abstain: a seeded victim (the default)
    kill = next(e for e in game.events if e.kind == "werewolf.kill_chosen")
    assert kill.how == "abstain_draw"
    answer_step(game)  # every bid falls back to 0: a seeded draw among all
    bids = next(e for e in game.events if e.kind == "werewolf.bids")
    assert set(bids.bids.values()) == {0}
    answer_step(game)  # the speech falls back to an empty pass
    assert [e.text for e in game.events if e.kind == "werewolf.speech"] == [""]
    fallbacks = [e for e in game.events if e.kind == "core.decision" and e.fallback]
    assert fallbacks and all(e.fallback_reason == "test" for e in fallbacks)


def test_ww23_a_vote_fallback_where_abstaining_is_off_is_a_seeded_legal_draw() -> None:
    game = new_game(abstain=False, self_vote=False, day_vote="sealed")
    night(game, kill=5)
    talk(game)
    events = answer_step(game)  # every ballot falls back
    (ballots,) = of_kind(events, "werewolf.ballots")
    assert set(ballots.drawn) == {1, 2, 3, 4, 6, 7, 8}
    assert all(t is not None and t != int(s) for s, t in ballots.ballots.items())
    again = new_game(abstain=False, self_vote=False, day_vote="sealed")
    night(again, kill=5)
    talk(again)
    assert of_kind(answer_step(again), "werewolf.ballots")[0] == ballots  # seeded
