"""The optional hooks of the variant contract, as Werewolf answers them: the
belief probe asks for the four roles and skips a werewolf's pack (WW-4), the
baseline bot and the study sides come from the variant, and the analysis reads
deaths and speeches from the kinds it declares."""

from __future__ import annotations

from sandbox.agents.llm.beliefs import probe_for
from sandbox.games.werewolf.bot import BaselineBot
from sandbox.games.werewolf.info import INFO, ROLES, SIDES
from tests.games.werewolf.helpers import WW, new_game


def test_the_probe_asks_for_roles_and_skips_the_pack() -> None:
    game = new_game()
    wolf = probe_for(game.view(1))
    assert wolf is not None and wolf.labels == ROLES
    assert 2 not in wolf.seats and 1 not in wolf.seats  # its fellow werewolf, itself
    villager = probe_for(game.view(5))
    assert villager is not None and set(villager.seats) == {1, 2, 3, 4, 6, 7, 8}


def test_the_bot_and_the_study_sides_come_from_the_variant() -> None:
    assert isinstance(WW.research.baseline_bot(3), BaselineBot)
    assert WW.research.study_sides() == SIDES
    assert {WW.research.study_side(role) for role in ROLES} == set(SIDES)
    assert WW.research.study_side("seer") == WW.research.study_side("villager") == "village"


def test_deaths_and_speeches_are_declared() -> None:
    assert INFO.death_fields == {"werewolf.dawn": "victim", "werewolf.exiled": "seat"}
    assert INFO.speech_kinds == {"werewolf.speech", "werewolf.last_words"}
    assert "werewolf.wolf_message" not in INFO.speech_kinds  # private to the pack (WW-6)
