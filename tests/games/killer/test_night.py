"""Night rules: KG-3 killers' opinions, KG-4 police check, KG-5 series rule."""

from __future__ import annotations

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice
from sandbox.games.killer.config import KillerConfig
from tests.games.killer.helpers import (
    CIVILIANS,
    KILLER,
    KILLERS,
    POLICE,
    answer_step,
    new_game,
    night,
    of_kind,
    pending,
    request_of,
)


def options(game: Game, seat: int, name: str) -> tuple[object, ...]:
    field = request_of(game, seat).field(name)
    assert isinstance(field, Choice)
    return field.legal()


@pytest.mark.rule("KG-3", "KG-11")
def test_game_starts_at_night_with_one_sealed_request_per_killer() -> None:
    game = new_game()
    assert [(r.seat, r.decision, r.rule) for r in game.pending()] == [
        (s, "kill_opinion", "KG-3") for s in KILLERS
    ]
    assert len({r.id for r in game.pending()}) == 3
    assert options(game, 1, "target") == (*range(1, 13), None)


@pytest.mark.rule("KG-3")
def test_majority_of_given_opinions_decides_and_none_counts_as_agreeing() -> None:
    game = new_game()
    answers = {1: 8, 2: None, 3: 8}
    events = answer_step(game, lambda r: {"target": answers[r.seat]})
    (chosen,) = of_kind(events, "killer.kill_chosen")
    assert chosen.target == 8 and chosen.tie_break is False
    events = answer_step(game, lambda r: {"suspect": None})
    (dawn,) = of_kind(events, "killer.dawn")
    assert dawn.victim == 8 and 8 not in game.state.alive


@pytest.mark.rule("KG-3")
def test_tied_opinions_are_broken_by_a_seeded_draw_among_the_tied() -> None:
    picked = set()
    for seed in range(12):
        game = new_game(seed)
        answers = {1: 8, 2: 9, 3: None}
        events = answer_step(game, lambda r, a=answers: {"target": a[r.seat]})
        (chosen,) = of_kind(events, "killer.kill_chosen")
        assert chosen.tie_break is True and chosen.target in (8, 9)
        picked.add(chosen.target)
        again = new_game(seed)
        events2 = answer_step(again, lambda r, a=answers: {"target": a[r.seat]})
        assert of_kind(events2, "killer.kill_chosen")[0].target == chosen.target
    assert picked == {8, 9}  # both outcomes occur across seeds


@pytest.mark.rule("KG-3")
def test_no_opinion_means_no_kill() -> None:
    game = new_game()
    events = night(game, kill=None)
    (dawn,) = of_kind(events, "killer.dawn")
    assert dawn.victim is None and len(game.state.alive) == 12


@pytest.mark.rule("KG-3", "KG-4")
def test_opinions_are_shown_to_the_killers_only() -> None:
    game = new_game()
    night(game, kill=7, check=1)
    opinion_events = [(i, e) for i, e in enumerate(game.events) if e.kind == "killer.opinions"]
    killer_seq = next(i for i, e in opinion_events if e.role == "killer")
    police_seq = next(i for i, e in opinion_events if e.role == "police")
    for seat in game.seats:
        seen = {i for i, _ in game.visible_events(seat)}
        assert (killer_seq in seen) == (seat in KILLERS)
        assert (police_seq in seen) == (seat in POLICE)


@pytest.mark.rule("KG-4")
def test_police_suspect_must_be_a_living_non_police_player() -> None:
    game = new_game()
    answer_step(game, lambda r: {"target": None})
    assert [r.seat for r in game.pending()] == list(POLICE)
    assert options(game, 4, "suspect") == (*KILLERS, *CIVILIANS, None)
    with pytest.raises(IllegalDecision, match=r"\[KG-4\]"):
        game.submit(request_of(game, 4).id, {"suspect": 5})


@pytest.mark.rule("KG-4")
@pytest.mark.parametrize(
    ("mode", "suspect", "answer"),
    [
        ("identity", 2, "killer"),
        ("identity", 9, "civilian"),
        ("killer_or_not", 2, "killer"),
        ("killer_or_not", 9, "not killer"),
    ],
)
def test_check_answer_modes(mode: str, suspect: int, answer: str) -> None:
    game = new_game(check_answer=mode)
    events = night(game, kill=None, check=suspect)
    (result,) = of_kind(events, "killer.check")
    assert (result.suspect, result.answer) == (suspect, answer)
    for seat in game.seats:
        checks = game.view(seat).private.get("checks")
        if seat in POLICE:
            assert checks == [{"night": 1, "suspect": suspect, "answer": answer}]
        else:
            assert checks is None
            assert "killer.check" not in [e.kind for _, e in game.visible_events(seat)]


@pytest.mark.rule("KG-4")
def test_police_with_no_opinion_check_nobody() -> None:
    game = new_game()
    events = night(game, kill=None, check=None)
    (result,) = of_kind(events, "killer.check")
    assert result.suspect is None and result.answer is None
    assert game.view(4).private["checks"] == []


def test_kg5_barred_victim_is_not_offered_and_is_rejected_on_night_one() -> None:
    game = new_game(previous_first_victim=9)
    assert 9 not in options(game, 1, "target")
    with pytest.raises(IllegalDecision, match=r"\[KG-3, KG-5\].*Legal options"):
        game.submit(request_of(game, 1).id, {"target": 9})
    # The referee's own check also rejects it (defence beyond the offered options).
    with pytest.raises(IllegalDecision, match=r"\[KG-5\].*Legal options") as err:
        KILLER.rules.check(game.state, request_of(game, 1), {"target": 9})
    assert 9 not in err.value.legal["target"]


def test_kg5_only_binds_night_one() -> None:
    game = new_game(previous_first_victim=9)
    night(game, kill=None)
    while game.pending()[0].decision != "kill_opinion":
        answer_step(game, None)
    assert game.state.day == 2
    assert 9 in options(game, 1, "target")


@pytest.mark.rule("KG-5")
def test_next_in_series_carries_the_first_night_victim() -> None:
    game = new_game()
    night(game, kill=10)
    config = KILLER.rules.next_in_series(game.config, game.state)
    assert isinstance(config, KillerConfig) and config.previous_first_victim == 10
    nobody = new_game()
    night(nobody, kill=None)
    following = KILLER.rules.next_in_series(nobody.config, nobody.state)
    assert isinstance(following, KillerConfig) and following.previous_first_victim is None
    chained = Game.new(KILLER, config, 1)
    assert 10 not in options(chained, 1, "target")


@pytest.mark.rule("KG-3", "KG-14")
def test_only_living_group_members_are_asked_at_night() -> None:
    game = new_game()
    night(game, kill=2)  # the killers may name one of their own (any living player)
    while not pending(game, "kill_opinion"):
        answer_step(game, None)
    assert [r.seat for r in game.pending()] == [1, 3]
