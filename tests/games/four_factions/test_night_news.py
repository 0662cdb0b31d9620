"""What the public learns of a fighting night, and when (FF-18, FF-26..FF-28).

The dawn report lists the dead in seat order (never in order of death), a pair
decided in the first half is announced only after dawn, the game still ends at
that dawn, and the end by day limit never speaks of a day past the limit."""

from __future__ import annotations

import pytest

from sandbox.core.game import Game
from sandbox.games.four_factions.state import speaking_order
from tests.games.four_factions.helpers import VARIANT, answer_all, fallback_until, kinds, new, night
from tests.games.four_factions.test_rules import KILL_ALL, PAPER, layout

# justice on seats 2, 4, 6, 8; spies on 10..16; wolves on 1, 3, 5, 7; army on 9..15.
JSWA = layout("justice", "spies", "wolves", "army")
WIPE_JUSTICE = {1: 2, 3: 4, 5: 6, 7: 8}  # with PAPER: four kills in the first half
# Second half, spies wipe the wolves (seat 10 takes paper to kill elite seat 1).
WIPE_WOLVES = {10: 1, 12: 7, 14: 3, 16: 5}
SPIES_PAPER = {**PAPER, 10: ("paper", "anti-rock")}


def _deaths_in_order(game: Game) -> list[int]:
    strikes = [s for duel in kinds(game, "ff.duel") for s in duel.strikes]
    return [int(s["struck"]) for s in strikes if s["hp_after"] <= 0]


def _tail(game: Game, n: int) -> list[str]:
    """The kinds of the game's last n events, step markers left out."""
    return [e.kind for e in game.events if e.kind != "core.step"][-n:]


def _public_kinds(game: Game, seat: int) -> list[str]:
    return [e.kind for _, e in game.visible_events(seat)]


# ------------------------------------------------------------------ FF-28
@pytest.mark.rule("FF-28")
def test_dawn_lists_the_night_dead_in_seat_order_not_order_of_death() -> None:
    game = new(JSWA, day_limit=5, reveal_faction_on_death=True)
    # First half: seat 3 kills 12, then seat 5 kills 6; second half: 14 kills 3.
    night(game, first={3: 12, 5: 6}, second={14: 3})
    assert _deaths_in_order(game) == [12, 6, 3]  # the scenario really is out of order
    (dawn,) = kinds(game, "ff.dawn")
    assert dawn.dead == (3, 6, 12)
    assert list(dawn.factions.items()) == [("3", "wolves"), ("6", "justice"), ("12", "spies")]
    item = next(h for h in game.view(9).history if h.kind == "ff.dawn")
    assert item.facts["dead"] == [3, 6, 12]
    assert list(item.facts["factions"]) == ["3", "6", "12"]


# ------------------------------------------------------------------ FF-26
@pytest.mark.rule("FF-26")
def test_a_first_half_decision_stays_secret_until_dawn() -> None:
    game = new(JSWA, day_limit=5)
    fallback_until(game, 4, "loadout")
    answer_all(game, "loadout", {s: {"weapon": w, "shield": sh} for s, (w, sh) in PAPER.items()})
    answer_all(game, "attack", {s: {"target": t} for s, t in WIPE_JUSTICE.items()})
    assert game.state.stage == "second_half"
    for seat in game.seats:  # no seat hears of it before choosing its second-half attack
        assert "ff.pair_decided" not in _public_kinds(game, seat)
        assert "ff.pair_settled" not in _public_kinds(game, seat)
        assert game.view(seat).public["decided_pairs"] == {}
    assert kinds(game, "ff.pair_settled")  # ...though the referee already knows
    answer_all(game, "attack", {})
    kinds_in_order = _public_kinds(game, 12)
    assert kinds_in_order.index("ff.dawn") < kinds_in_order.index("ff.pair_decided")
    (settled,) = kinds(game, "ff.pair_settled")
    assert (settled.pair, settled.half) == ("wolves/justice", 1)  # the referee keeps the half
    (decided,) = kinds(game, "ff.pair_decided")
    assert "half" not in decided.to_json()["data"]  # the public never learns the half
    assert dict(decided.results) == {"wolves": "win", "justice": "lose"} and decided.day == 4
    assert game.view(12).public["decided_pairs"] == {"wolves/justice": dict(decided.results)}
    assert not game.over  # spies/army is still open


@pytest.mark.rule("FF-26")
def test_a_first_half_result_is_final_when_the_winner_dies_in_the_second_half() -> None:
    game = new(JSWA, day_limit=9)
    night(game, SPIES_PAPER, first=WIPE_JUSTICE, second=WIPE_WOLVES)
    assert _deaths_in_order(game) == [2, 4, 6, 8, 1, 7, 3, 5]
    (decided,) = kinds(game, "ff.pair_decided")
    assert dict(decided.results) == {"wolves": "win", "justice": "lose"}  # not a draw


@pytest.mark.rule("FF-26", "FF-27")
def test_the_last_pair_settled_mid_night_ends_the_game_at_dawn() -> None:
    game = new(layout("justice", "army", "wolves", "spies"), day_limit=20)
    night(game, PAPER, first=KILL_ALL)  # both pairs settle in the first half
    assert _tail(game, 6) == [
        "ff.pair_settled",
        "ff.pair_settled",
        "ff.dawn",
        "ff.pair_decided",
        "ff.pair_decided",
        "core.game_ended",
    ]
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "pairs_decided"


@pytest.mark.rule("FF-26", "FF-27")
def test_pairs_settled_in_different_halves_end_the_game_at_that_dawn() -> None:
    # wolves/justice settles in the first half, spies/army in the second.
    seats = layout("justice", "spies", "wolves", "army")
    game = new(seats, day_limit=20)
    night(game, PAPER, first={**WIPE_JUSTICE, 9: 10, 11: 12, 13: 14}, second={16: 15})
    halves = {e.pair: e.half for e in kinds(game, "ff.pair_settled")}
    assert halves == {"wolves/justice": 1, "spies/army": 2}
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "pairs_decided"
    assert _tail(game, 5) == [
        "ff.pair_settled",
        "ff.dawn",
        "ff.pair_decided",
        "ff.pair_decided",
        "core.game_ended",
    ]


# ------------------------------------------------------------------ FF-27
@pytest.mark.rule("FF-27")
def test_the_day_limit_end_never_mentions_a_day_past_the_limit() -> None:
    game = new(JSWA, day_limit=4)
    night(game, PAPER, first=WIPE_JUSTICE)
    lines = [VARIANT.describe_event(e) for e in game.events if e.kind.startswith("ff.")]
    assert not any("day 5" in line.lower() for line in lines), lines[-4:]
    assert lines[-3].startswith("Dawn after night 4: seats 2, 4, 6, 8 died")
    assert lines[-2].startswith("Pair wolves/justice is decided")
    assert lines[-1] == "The day limit is reached after day 4 (FF-27)."
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "day_limit"


# ------------------------------------------------------------------ FF-18
@pytest.mark.rule("FF-18")
def test_speaking_order_wraps_around_after_seat_sixteen() -> None:
    everyone = list(range(1, 17))
    assert speaking_order(16, everyone) == [16, *range(1, 16)]
    assert speaking_order(17, everyone) == everyone  # day 17 starts at seat 1 again
    assert speaking_order(33, everyone) == everyone
    without_16 = [s for s in everyone if s != 16]
    assert speaking_order(16, without_16) == list(range(1, 16))  # the dead start seat is skipped
    without_1 = everyone[1:]
    assert speaking_order(17, without_1) == list(range(2, 17))


@pytest.mark.rule("FF-18")
def test_day_sixteen_and_seventeen_open_at_seats_sixteen_and_one() -> None:
    game = new(seed=2, day_limit=17)
    fallback_until(game, 16, "open")  # everyone stays home: nobody dies
    assert [r.seat for r in game.pending()] == [16]
    fallback_until(game, 17, "open")
    assert [r.seat for r in game.pending()] == [1]
