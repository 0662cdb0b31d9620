"""Weapons and shields (FF-4, FF-6) and the duel's single strike back (FF-22),
through the strike table and the public Game API."""

from __future__ import annotations

import random

import pytest

from sandbox.core.game import Game
from sandbox.games.four_factions.bot import BaselineBot
from sandbox.games.four_factions.resolve import BEATS, STRIKE_TABLE
from tests.games.four_factions.helpers import VARIANT, config, fallback_until, kinds, new, night
from tests.games.four_factions.test_rules import layout
from tests.testing.driver import play

WEAPONS = ("rock", "scissors", "paper")
SHIELDS = ("anti-rock", "anti-scissors", "anti-paper")


@pytest.mark.rule("FF-4")
def test_rock_beats_scissors_beats_paper_beats_rock() -> None:
    assert dict(BEATS) == {"rock": "scissors", "scissors": "paper", "paper": "rock"}
    for weapon, beaten in BEATS.items():
        # Striking the shield that guards against the beaten weapon kills; the
        # beaten weapon striking a shield against this one only wounds.
        assert STRIKE_TABLE[(weapon, beaten)] == "kill"
        assert STRIKE_TABLE[(beaten, weapon)] == "wound"


@pytest.mark.rule("FF-4", "FF-5")
def test_an_elite_chooses_among_the_three_weapons_and_the_three_shields() -> None:
    game = new(layout("justice", "spies", "wolves", "army"), day_limit=4)
    fallback_until(game, 4, "loadout")
    for request in game.pending():
        weapon, shield = request.field("weapon"), request.field("shield")
        assert weapon.options == WEAPONS  # type: ignore[union-attr]
        assert shield.options == SHIELDS  # type: ignore[union-attr]


@pytest.mark.rule("FF-6")
@pytest.mark.parametrize("seed", range(3))
def test_a_regular_keeps_one_weapon_and_its_own_shield_all_game(seed: int) -> None:
    """Baseline bots fight to the end; every strike by or on a regular uses the
    weapon and the anti-weapon shield it was dealt, and no regular picks a loadout."""
    game = Game.new(VARIANT, config(day_limit=8), seed)
    rng = random.Random(seed)
    regulars = [s for s in game.seats if not game.state.elite[s]]
    dealt = {s: (game.view(s).private["weapon"], game.view(s).private["shield"]) for s in regulars}
    assert all(shield == f"anti-{weapon}" for weapon, shield in dealt.values())
    play(game, {s: BaselineBot(rng.getrandbits(32)) for s in game.seats})
    assert not [e for e in kinds(game, "ff.loadout") if e.seat in dealt]
    strikes = [s for duel in kinds(game, "ff.duel") for s in duel.strikes]
    on_regulars = [s for s in strikes if int(s["struck"]) in dealt]
    assert on_regulars, "no regular was ever struck: the check saw nothing"
    for strike in strikes:
        if int(strike["striker"]) in dealt:
            assert strike["weapon"] == dealt[int(strike["striker"])][0]
    for strike in on_regulars:
        guarded = dealt[int(strike["struck"])][0]
        assert strike["effect"] == STRIKE_TABLE[(strike["weapon"], guarded)]
    for seat in regulars:
        private = game.view(seat).private
        assert (private["weapon"], private["shield"]) == dealt[seat]


@pytest.mark.rule("FF-22", "FF-24")
@pytest.mark.parametrize(
    ("attacker", "defender", "strikes"),
    [
        ("scissors", "rock", [(3, "wound"), (4, "kill")]),  # wounded, then kills back
        ("rock", "rock", [(3, "none"), (4, "none")]),  # both survive: one strike each
        ("paper", "rock", [(3, "kill")]),  # a dead defender strikes nothing back
    ],
)
def test_the_defender_strikes_back_once_even_at_a_faction_mate(
    attacker: str, defender: str, strikes: list[tuple[int, str]]
) -> None:
    seats = [
        {"seat": 3, "faction": "wolves", "elite": False, "weapon": attacker},
        {"seat": 4, "faction": "wolves", "elite": False, "weapon": defender},
    ]
    game = new(seats, day_limit=4, weapon_assignment="random")
    night(game, first={3: 4})
    (duel,) = kinds(game, "ff.duel")
    assert [(s["striker"], s["effect"]) for s in duel.strikes] == strikes
