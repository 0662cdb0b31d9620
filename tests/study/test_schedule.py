"""Scheduler balance: every contestant plays every side equally often, and sits
on every seat equally often; cells are the documented ones."""

from __future__ import annotations

from collections import Counter

import pytest

from sandbox.session.gamefile import parse_config
from sandbox.study.schedule import cell_id, deal, matrix_cells, plan, round_robin_cells
from sandbox.transcript.sides import side_of

NAMES = ["a", "b", "c"]


def test_killer_matrix_is_every_ordered_pair_once() -> None:
    cells = matrix_cells(NAMES, ["killer", "police"])
    pairs = [(c["killer"], c["police"]) for c in cells]
    assert sorted(pairs) == [(x, y) for x in NAMES for y in NAMES if x != y]


def test_four_factions_matrix_puts_each_contestant_alone_on_each_faction() -> None:
    sides = ["wolves", "spies", "justice", "army"]
    cells = matrix_cells(NAMES, sides)
    assert len(cells) == 3 * 2 * 4  # ordered pairs x focus faction, no duplicates
    assert len({cell_id(c, sides) for c in cells}) == len(cells)


def test_round_robin_rotates_the_pool_over_the_sides() -> None:
    cells = round_robin_cells(NAMES, ["killer", "police"])
    assert cells == [
        {"killer": "a", "police": "b"},
        {"killer": "b", "police": "c"},
        {"killer": "c", "police": "a"},
    ]


@pytest.mark.parametrize(
    ("variant", "rules", "schedule"),
    [
        ("killer", {"players": 11}, "matrix"),
        ("killer", {"players": 13}, "round_robin"),
        ("four_factions", {}, "matrix"),
        ("four_factions", {}, "round_robin"),
    ],
)
def test_each_contestant_plays_each_side_and_each_seat_equally(
    variant: str, rules: dict[str, int], schedule: str
) -> None:
    loaded = parse_config({"variant": variant, "rules": rules})
    games = plan(loaded.variant, loaded.game_config, schedule, NAMES, 3, 50)
    sides: Counter[tuple[str, str]] = Counter()
    seats: Counter[tuple[str, int]] = Counter()
    for game in games:
        for side, who in game.sides.items():
            sides[(who, side)] += 1
        for seat, who in game.seats.items():
            seats[(who, seat)] += 1
    assert len(set(sides.values())) == 1  # role rotation
    assert {who for who, _ in sides} == set(NAMES)
    assert len(set(seats.values())) == 1  # seat balance
    seat_count = loaded.variant.rules.seat_count(loaded.game_config)
    assert len(seats) == len(NAMES) * seat_count


def test_seats_follow_the_deal_and_every_cell_replays_the_same_seeds() -> None:
    loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
    games = plan(loaded.variant, loaded.game_config, "matrix", NAMES, 2, 7)
    assert {g.seed for g in games} == {7, 8}
    assert len(games) == 6 * 2
    for game in games:
        from sandbox.study.schedule import deal

        roles = deal(loaded.variant, loaded.game_config, game.seed)
        for seat, who in game.seats.items():
            assert who == game.sides[side_of("killer", roles[seat])]


def test_the_i3_schedule_plays_every_role_to_contestant_assignment() -> None:
    """Mini-Mafia's line-ups: with 3 contestants and the roles werewolf, seer and
    villager, 3³ = 27 cells, each seat of a role played by the role's contestant."""
    loaded = parse_config(
        {"variant": "werewolf", "rules": {"players": 6, "werewolves": 1, "doctors": 0}}
    )
    games = plan(loaded.variant, loaded.game_config, "i3", NAMES, 2, 7)
    assert len(games) == 27 * 2
    triples = {(g.sides["werewolf"], g.sides["seer"], g.sides["villager"]) for g in games}
    assert triples == {(m, d, v) for m in NAMES for d in NAMES for v in NAMES}
    assert games[0].cell == "seer=a,villager=a,werewolf=a"
    for game in games:
        for seat, role in deal(loaded.variant, loaded.game_config, game.seed).items():
            assert game.seats[seat] == game.sides[role]
