"""KG-1/KG-2 and the config model: counts, fixed seats, errors, seeded dealing."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pydantic import ValidationError

from sandbox.core.errors import ConfigError
from sandbox.core.game import Game
from sandbox.games.killer.config import KillerConfig
from sandbox.play.gamefile import parse_config
from tests.games.killer.helpers import KILLER


def load(rules: dict[str, Any], seats: list[dict[str, Any]] | None = None) -> KillerConfig:
    loaded = parse_config({"variant": "killer", "rules": rules, "seat": seats or []})
    assert isinstance(loaded.game_config, KillerConfig)
    return loaded.game_config


@pytest.mark.rule("KG-1")
@pytest.mark.parametrize("players", [10, 17, 0, 3])
def test_player_count_outside_11_to_16_is_a_config_error(players: int) -> None:
    with pytest.raises(ConfigError, match=r"rules\.players.*11–16 players \(KG-1\)"):
        load({"players": players})


@pytest.mark.rule("KG-1")
@pytest.mark.parametrize(
    ("players", "side"), [(11, 3), (12, 3), (13, 3), (14, 3), (15, 4), (16, 4)]
)
def test_lineup_counts(players: int, side: int) -> None:
    config = load({"players": players})
    for seed in range(3):
        roles = Game.new(KILLER, config, seed).roles()
        counts = Counter(roles.values())
        assert counts == {"killer": side, "police": side, "civilian": players - 2 * side}


@pytest.mark.rule("KG-1")
def test_too_many_fixed_killers_is_an_error() -> None:
    seats = [{"seat": s, "role": "killer"} for s in (1, 2, 3, 4)]
    with pytest.raises(ConfigError, match=r"4 seats fixed as killer.*only 3"):
        load({"players": 12}, seats)


def test_fixed_seat_out_of_range_or_twice_is_an_error() -> None:
    with pytest.raises(ConfigError, match="out of range"):
        load({"players": 11}, [{"seat": 12, "role": "police"}])
    with pytest.raises(ConfigError, match="fixed twice"):
        load({}, [{"seat": 2, "role": "police"}, {"seat": 2, "role": "killer"}])
    with pytest.raises(ConfigError, match="seat"):
        load({}, [{"seat": 2, "role": "judge"}])


def test_unknown_rule_key_and_bad_values_are_rejected() -> None:
    with pytest.raises(ConfigError, match=r"rules\.reveal_roles: unknown key"):
        load({"reveal_roles": True})
    with pytest.raises(ConfigError, match="check_answer"):
        load({"check_answer": "maybe"})
    with pytest.raises(ConfigError, match="previous_first_victim"):
        load({"previous_first_victim": 13})


@pytest.mark.rule("KG-4", "KG-6", "KG-12")
def test_defaults_follow_the_spec_and_config_is_frozen() -> None:
    config = load({})
    assert config.check_answer == "identity"
    assert config.reveal_role_on_death is False
    assert config.day_limit == 30
    assert config.previous_first_victim is None
    with pytest.raises(ValidationError):
        config.players = 13  # type: ignore[misc]


@pytest.mark.rule("KG-2")
def test_fixed_seats_keep_their_roles_and_the_rest_is_shuffled() -> None:
    seats = [{"seat": 5, "role": "killer"}, {"seat": 9, "role": "police"}]
    config = load({"players": 12}, seats)
    dealt = [Game.new(KILLER, config, seed).roles() for seed in range(20)]
    assert all(r[5] == "killer" and r[9] == "police" for r in dealt)
    assert len({tuple(sorted(r.items())) for r in dealt}) > 1  # seed-dependent
    assert Game.new(KILLER, config, 7).roles() == Game.new(KILLER, config, 7).roles()


@pytest.mark.rule("KG-2")
def test_role_cards_and_team_lists_are_seen_by_the_right_seats() -> None:
    game = Game.new(KILLER, load({"players": 13}), 4)
    roles = game.roles()
    for seat in game.seats:
        cards = [e for _, e in game.visible_events(seat) if e.kind == "killer.role"]
        assert [c.seat for c in cards] == [seat]
        teams = [e for _, e in game.visible_events(seat) if e.kind == "killer.team"]
        if roles[seat] == "civilian":
            assert teams == []
        else:
            (team,) = teams
            assert team.role == roles[seat]
            assert set(team.members) == {s for s, r in roles.items() if r == roles[seat]}


@pytest.mark.parametrize(
    ("rules", "seats", "expected"),
    [
        (
            {"players": 12},
            [{"seat": 13, "role": "police"}],
            "seat: [13] out of range; allowed: 1..12",
        ),
        (
            {},
            [{"seat": 2, "role": "police"}, {"seat": 2, "role": "killer"}],
            "seat: a seat is fixed",
        ),
        ({}, [{"seat": 1, "role": "police"}, {"seat": 2, "role": "judge"}], "seat[2].role: "),
        ({"previous_first_victim": 13}, [], "rules.previous_first_victim: 13 out of range"),
    ],
)
def test_seat_errors_are_reported_under_their_key(
    rules: dict[str, Any], seats: list[dict[str, Any]], expected: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load(rules, seats)
    assert str(err.value).startswith(expected)
    assert "(top level)" not in str(err.value)


@pytest.mark.parametrize(
    ("key", "value"),
    [("players", 12.0), ("players", True), ("day_limit", 5.0), ("day_limit", False)],
)
def test_counts_must_be_true_integers(key: str, value: object) -> None:
    with pytest.raises(ConfigError) as err:
        load({key: value})
    assert str(err.value).startswith(f"rules.{key}: Input should be a valid integer")
    assert repr(value) in str(err.value)
