"""The night: WW-5 (order), WW-6 (pack messages), WW-7 (the kill), WW-8 (the
doctor), WW-9 (the resolution), WW-10 (the seer)."""

from __future__ import annotations

from collections import Counter

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice
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
    visible_kinds,
    vote,
)


def options(game, seat: int, name: str = "target") -> tuple[object, ...]:  # type: ignore[no-untyped-def]
    field = request_of(game, seat).field(name)
    assert isinstance(field, Choice)
    return field.options


def test_ww5_seer_and_doctor_decide_together_before_the_pack() -> None:
    game = new_game()
    assert {(r.seat, r.decision) for r in game.pending()} == {
        (SEER, "inspect"),
        (DOCTOR, "protect"),
    }
    answer_step(game, lambda r: {"target": 5})
    assert decisions(game) == {"kill"}


def test_ww5_a_seer_killed_tonight_still_learns_its_result_then_nothing_private() -> None:
    game = new_game()
    events = night(game, kill=SEER, protect=5, inspect=1)
    kinds = [e.kind for e in events]
    assert kinds.index("werewolf.seer_result") < kinds.index("werewolf.dawn")
    assert of_kind(events, "werewolf.seer_result")[0].result == "werewolf"
    assert of_kind(events, "werewolf.dawn")[0].victim == SEER
    before = len(game.events)
    talk(game)
    vote(game, {})
    later = [e for e in game.events[before:] if e.visibility().scope == "seats"]
    assert later and all(not e.visibility().visible_to(SEER) for e in later)


def test_ww6_pack_messages_go_in_seat_order_to_the_living_pack_only_unsoftened() -> None:
    game = new_game(wolf_chat=True)
    answer_step(game, lambda r: {"target": 5})  # seer, doctor
    assert [r.seat for r in game.pending()] == [1] and decisions(game) == {"wolf_message"}
    game.submit(game.pending()[0].id, {"message": "kill seat 6"})
    assert [r.seat for r in game.pending()] == [2]
    assert "werewolf.wolf_message" in [h.kind for h in game.view(2).history]  # sees seat 1's
    game.submit(game.pending()[0].id, {"message": ""})
    messages = [e for e in game.events if e.kind == "werewolf.wolf_message"]
    assert [m.seat for m in messages] == [1, 2] and messages[0].text == "kill seat 6"
    assert all(m.visibility().seats == frozenset({1, 2}) for m in messages)
    assert "werewolf.wolf_message" not in visible_kinds(game, 5)
    assert decisions(game) == {"kill"}


def test_ww6_a_message_longer_than_speech_chars_is_refused() -> None:
    game = new_game(wolf_chat=True, speech_chars=10)
    answer_step(game)
    with pytest.raises(IllegalDecision):
        game.submit(game.pending()[0].id, {"message": "x" * 11})


def test_ww7_sequential_vote_sees_earlier_targets() -> None:
    game = new_game()
    answer_step(game)
    assert [r.seat for r in game.pending()] == [1]
    game.submit(game.pending()[0].id, {"target": 6})
    assert [r.seat for r in game.pending()] == [2]
    assert game.view(2).private["pack_votes_tonight"] == {"1": 6}
    assert "werewolf.wolf_votes" not in visible_kinds(game, 6)  # the village never sees it


def test_ww7_sealed_votes_are_asked_at_once_and_shown_after() -> None:
    game = new_game(wolf_vote="sealed")
    answer_step(game)
    assert sorted(r.seat for r in game.pending()) == [1, 2]
    game.submit(request_of(game, 1).id, {"target": 6})
    assert game.view(2).private["pack_votes_tonight"] == {}  # sealed until both answered
    game.submit(request_of(game, 2).id, {"target": 6})
    votes = [e for e in game.events if e.kind == "werewolf.wolf_votes"]
    assert len(votes) == 1 and dict(votes[0].votes) == {"1": 6, "2": 6}


def test_ww7_one_wolf_is_drawn_each_night_by_the_seed() -> None:
    drawn: Counter[int] = Counter()
    for seed in range(30):
        game = new_game(seed, wolf_vote="one_wolf")
        answer_step(game)
        pending = game.pending()
        assert len(pending) == 1 and pending[0].decision == "kill"
        drawn[pending[0].seat] += 1
        again = new_game(seed, wolf_vote="one_wolf")
        answer_step(again)
        assert again.pending()[0].seat == pending[0].seat
    assert set(drawn) == {1, 2}


def test_ww7_werewolves_never_target_each_other() -> None:
    game = new_game()
    answer_step(game)
    assert set(options(game, 1)) == {3, 4, 5, 6, 7, 8}
    with pytest.raises(IllegalDecision) as caught:
        game.submit(game.pending()[0].id, {"target": 2})
    assert caught.value.rule == "WW-7"


def test_ww7_a_tie_is_a_seeded_draw_among_the_tied() -> None:
    chosen = set()
    for seed in range(20):
        game = new_game(seed)
        events = night(game, kills={1: 5, 2: 6})
        kill = of_kind(events, "werewolf.kill_chosen")[0]
        assert kill.how == "tie_draw" and kill.target in (5, 6)
        chosen.add(kill.target)
    assert chosen == {5, 6}


def test_ww7_all_abstain_random_draws_a_village_seat_or_nobody_dies() -> None:
    game = new_game(1)
    kill = of_kind(night(game, kill=None), "werewolf.kill_chosen")[0]
    assert kill.how == "abstain_draw" and kill.target in (3, 4, 5, 6, 7, 8)
    game = new_game(1, wolf_all_abstain="nobody")
    events = night(game, kill=None)
    assert of_kind(events, "werewolf.kill_chosen")[0].target is None
    assert of_kind(events, "werewolf.dawn")[0].victim is None


def test_ww7_the_pack_sees_the_chosen_target() -> None:
    game = new_game()
    events = night(game, kill=7)
    chosen = of_kind(events, "werewolf.kill_chosen")[0]
    assert chosen.visibility().seats == frozenset({1, 2}) and chosen.target == 7
    assert game.view(1).private["kills"] == [{"night": 1, "target": 7, "how": "votes"}]


def test_ww8_the_doctor_may_protect_a_werewolf_and_itself_by_default() -> None:
    game = new_game()
    assert set(options(game, DOCTOR)) == set(range(1, 9))


def test_ww8_doctor_self_save_off_refuses_itself() -> None:
    game = new_game(doctor_self_save=False)
    assert DOCTOR not in options(game, DOCTOR)
    with pytest.raises(IllegalDecision) as caught:
        game.submit(request_of(game, DOCTOR).id, {"target": DOCTOR})
    assert caught.value.rule == "WW-8"


def test_ww8_doctor_repeat_off_forbids_only_last_nights_seat() -> None:
    game = new_game(doctor_repeat=False, all_abstain="nobody")
    night(game, kill=7, protect=5)
    talk(game)
    vote(game, {})
    assert 5 not in options(game, DOCTOR) and 6 in options(game, DOCTOR)
    with pytest.raises(IllegalDecision):
        game.submit(request_of(game, DOCTOR).id, {"target": 5})


def test_ww8_a_night_without_protection_clears_the_repeat_ban() -> None:
    game = new_game(doctor_repeat=False, all_abstain="nobody")
    night(game, kill=7, protect=5)
    talk(game)
    vote(game, {})
    night(game, kill=8, protect=None)  # the doctor falls back: no protection
    talk(game)
    vote(game, {})
    assert 5 in options(game, DOCTOR)


def test_ww9_a_protected_target_survives_and_only_the_doctor_learns_it() -> None:
    saved = new_game()
    events = night(saved, kill=6, protect=6)
    assert of_kind(events, "werewolf.dawn")[0].victim is None
    save = of_kind(events, "werewolf.saved")[0]
    assert save.visibility().seats == frozenset({DOCTOR}) and save.seat == 6
    assert saved.view(DOCTOR).private["saves"] == [{"night": 1, "seat": 6}]
    quiet = new_game(wolf_all_abstain="nobody")
    calm = night(quiet, kill=None, protect=6)
    # The public morning is the same for a save and for a night without a kill.
    assert of_kind(events, "werewolf.dawn")[0] == of_kind(calm, "werewolf.dawn")[0]
    assert not of_kind(calm, "werewolf.saved")


def test_ww9_an_unprotected_target_dies() -> None:
    game = new_game()
    events = night(game, kill=6, protect=5)
    assert of_kind(events, "werewolf.dawn")[0].victim == 6
    assert 6 not in game.state.alive and not of_kind(events, "werewolf.saved")


@pytest.mark.parametrize(("reveals", "result"), [("role", "doctor"), ("team", "village")])
def test_ww10_the_seer_learns_the_role_or_the_team(reveals: str, result: str) -> None:
    game = new_game(seer_reveals=reveals)
    events = night(game, kill=6, inspect=DOCTOR)
    found = of_kind(events, "werewolf.seer_result")[0]
    assert (found.seat, found.result) == (DOCTOR, result)
    assert found.visibility().seats == frozenset({SEER})
    assert game.view(SEER).private["inspections"] == [{"night": 1, "seat": 4, "result": result}]


def test_ww10_the_seer_never_checks_itself_and_may_repeat_by_default() -> None:
    game = new_game(all_abstain="nobody")
    assert SEER not in options(game, SEER)
    night(game, kill=6, inspect=5)
    talk(game)
    vote(game, {})
    assert 5 in options(game, SEER)


def test_ww10_seer_repeat_off_leaves_checked_seats_out_then_no_request() -> None:
    game = new_game(
        players=6,
        roles={1: "werewolf", 2: "seer", 3: "doctor"},
        seer_repeat=False,
        all_abstain="nobody",
        wolf_all_abstain="nobody",
    )
    for inspect in (1, 3, 4, 5, 6):
        assert inspect in options(game, 2)
        night(game, kill=None, protect=4, inspect=inspect)
        talk(game)
        vote(game, {})
        if inspect != 6:
            assert inspect not in options(game, 2)
    # WW-23: every other living seat was checked: the seer gets no request.
    assert [r.decision for r in game.pending()] == ["protect"]
