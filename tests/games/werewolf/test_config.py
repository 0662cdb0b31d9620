"""WW-1 (seats, role counts and the refused setups), WW-2 (the deal), WW-24
(presets), and the one-line errors a game file gets."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sandbox.core.errors import ConfigError
from sandbox.core.game import Game
from sandbox.games.werewolf.config import PRESETS
from sandbox.session.gamefile import parse_config
from tests.games.werewolf.helpers import WW


def error_of(**rules: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        WW.parse_config(rules)
    return str(caught.value)


def test_ww1_defaults_are_kaggles_eight_seat_standard_setup() -> None:
    config = WW.parse_config({})
    assert (config.players, config.werewolves, config.seers, config.doctors) == (8, 2, 1, 1)
    assert config.counts() == {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4}


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"players": 5}, "6-16 seats (WW-1); got 5"),
        ({"players": 17}, "6-16 seats (WW-1); got 17"),
        ({"seers": 2}, "seers"),
        ({"doctors": 2}, "doctors"),
        ({"werewolves": 0}, "werewolves"),  # no werewolf
        ({"players": 6, "werewolves": 5}, "more than the 6 seats (WW-1)"),
        ({"players": 8, "werewolves": 4}, "win before the first night (WW-19)"),
        ({"players": 7, "werewolves": 4, "seers": 0, "doctors": 0}, "(WW-19)"),
        ({"rounds": 0}, "rounds"),
        ({"turns": 0}, "turns"),
        ({"speech_chars": 0}, "speech_chars"),
        ({"day_limit": 0}, "day_limit"),
        ({"players": 8.0}, "players"),
        ({"wolf_vote": "loudest"}, "wolf_vote"),
        ({"preset": "mafia"}, "preset"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_ww1_refused_setups_name_the_key(rules: dict[str, Any], message: str) -> None:
    assert message in error_of(**rules)


def test_ww1_the_largest_legal_pack_plays() -> None:
    config = WW.parse_config({"players": 7, "werewolves": 3})
    assert config.counts()["villager"] == 2  # 3 wolves against 4 others
    assert WW.parse_config({"players": 16, "werewolves": 7}).werewolves == 7


def test_ww1_a_game_file_gets_one_line_naming_the_rule() -> None:
    raw = {"variant": "werewolf", "rules": {"players": 8, "werewolves": 4}}
    with pytest.raises(ConfigError) as caught:
        parse_config(raw)
    text = str(caught.value)
    assert "\n" not in text and "WW-19" in text and "werewolves" in text


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([{"seat": 9, "role": "seer"}], "out of range"),
        ([{"seat": 1, "role": "seer"}, {"seat": 1, "role": "doctor"}], "fixed twice"),
        ([{"seat": 1, "role": "seer"}, {"seat": 2, "role": "seer"}], "only 1 (WW-1)"),
        ([{"seat": 1, "role": "wizard"}], "role"),
    ],
)
def test_ww1_fixed_seats_must_fit_the_lineup(seats: list[dict[str, Any]], message: str) -> None:
    assert message in error_of(seat=seats)


def test_ww2_the_deal_is_seeded_and_keeps_fixed_seats() -> None:
    config = WW.parse_config({})
    deals = {tuple(Game.new(WW, config, seed).roles().values()) for seed in range(20)}
    assert len(deals) > 5  # the seed decides
    again = Game.new(WW, config, 3).roles()
    assert again == Game.new(WW, config, 3).roles()  # the same seed, the same deal
    fixed = WW.parse_config({"seat": [{"seat": 8, "role": "seer"}]})
    for seed in range(10):
        roles = Game.new(WW, fixed, seed).roles()
        assert roles[8] == "seer"
        assert sorted(roles.values()) == sorted(
            ["werewolf"] * 2 + ["seer", "doctor"] + ["villager"] * 4
        )


def test_ww24_the_arena_preset_sets_its_rulings() -> None:
    config = WW.parse_config({"preset": "werewolf_arena"})
    for key, value in PRESETS["werewolf_arena"].items():
        assert getattr(config, key) == value, key
    assert WW.parse_config({"preset": "kaggle_standard"}) == WW.parse_config({})


def test_ww24_a_key_beside_the_preset_overrides_it() -> None:
    config = WW.parse_config({"preset": "werewolf_arena", "turns": 12, "abstain": True})
    assert (config.turns, config.abstain, config.discussion) == (12, True, "bidding")


def test_ww4_every_ruling_is_announced_but_not_the_fixed_seats() -> None:
    game = Game.new(WW, WW.parse_config({"seat": [{"seat": 2, "role": "seer"}]}), 1)
    started = game.events[0]
    data = started.to_json()["data"]
    assert started.visibility().scope == "public"
    assert "seat" not in data["rulings"]
    assert data["rulings"]["wolf_vote"] == "sequential" and data["villagers"] == 4
