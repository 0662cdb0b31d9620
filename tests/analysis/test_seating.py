"""Validity: seat, speaking-order and first/last-speaker effects, and the rating
without games decided after a rule failure (hand-built cases)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.analysis.load import load_games
from sandbox.analysis.seating import (
    Item,
    effects_of,
    flag_text,
    items_of,
    seat_effects,
    speaking_order,
)
from sandbox.analysis.validity import failure_headline
from tests.analysis.builders import (
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)


def test_the_speaking_order_is_the_first_day_with_discussion_last_words_left_out(
    tmp_path: Path,
) -> None:
    write_transcript(
        tmp_path / "g.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, KILLER_RESULTS
    )
    (game,) = load_games([tmp_path]).games
    # day 1 speeches: 4, 1, 2; seat 1's last words come after and do not count
    assert speaking_order(game) == {4: 1, 1: 2, 2: 3}
    found = {i.seat: (i.side, i.won, i.place, i.speakers) for i in items_of(game)}
    assert found[4] == ("police", 0.0, 1, 3)
    assert found[2] == ("killer", 1.0, 3, 3)
    assert found[6] == ("police", 0.0, None, 3)


def two_games() -> list[Item]:
    """Two 2-seat games, sides a and b. Game g1: seat 1 (a, speaks first) wins;
    game g2: seat 2 (a, speaks first) wins. Side a wins both: base(a) = 1,
    base(b) = 0, so every residual is 0 — seat numbers move nothing."""
    return [
        Item("g1", 1, "a", 1.0, 1, 2),
        Item("g1", 2, "b", 0.0, 2, 2),
        Item("g2", 2, "a", 1.0, 1, 2),
        Item("g2", 1, "b", 0.0, 2, 2),
    ]


def test_a_side_advantage_is_no_seat_effect() -> None:
    found = effects_of(two_games())
    assert all(value == 0.0 for value, _ in found.values())
    assert found["seat:1"] == (0.0, 2) and found["first_speaker"] == (0.0, 2)


def test_the_last_speaker_effect_by_hand() -> None:
    """Four 2-seat games, both sides won half of them (base ½ each): the last
    speaker won 3 of 4 — residuals +½, +½, +½, −½, mean +¼; the first speaker
    −¼. Every residual sums to 0."""
    items = []
    games = [("b", "a", True), ("a", "b", True), ("b", "a", True), ("b", "a", False)]
    for n, (first_side, last_side, last_won) in enumerate(games):
        items.append(Item(f"g{n}", 1, first_side, float(not last_won), 1, 2))
        items.append(Item(f"g{n}", 2, last_side, float(last_won), 2, 2))
    found = effects_of(items)
    # side a won g0 and g2, side b g1 and g3: base(a) = base(b) = ½
    assert sum(value * n for value, n in (found["seat:1"], found["seat:2"])) == 0.0
    assert found["last_speaker"][0] == pytest.approx(0.25)
    assert found["first_speaker"][0] == pytest.approx(-0.25)
    assert found["order:2"] == found["last_speaker"] and found["seat:2"] == found["last_speaker"]
    table = seat_effects(items, seed=1, samples=200)
    low, high = table["last_speaker"]["ci95"]
    assert low <= 0.25 <= high and table["last_speaker"]["items"] == 4


def test_an_effect_in_every_game_excludes_zero_and_is_flagged() -> None:
    """The last speaker wins all 20 games and sides alternate: last speaker
    +½, first −½ in every resample (the interval has no spread and excludes 0)."""
    items = []
    for n in range(20):
        first_side, last_side = ("a", "b") if n % 2 else ("b", "a")
        items += [Item(f"g{n}", 1, first_side, 0.0, 1, 2), Item(f"g{n}", 2, last_side, 1.0, 2, 2)]
    table = seat_effects(items, seed=1, samples=100)
    assert table["last_speaker"]["effect"] == 0.5 and table["last_speaker"]["excludes_zero"]
    assert table["first_speaker"]["ci95"][1] < 0
    summary = {"flagged": ["last_speaker"], "effects": table}
    assert "last_speaker +0.50" in (flag_text(summary) or "")
    assert flag_text({"flagged": [], "effects": table}) is None


def test_the_rating_without_hinged_games_is_a_headline() -> None:
    ratings = {
        "X": {"elo": 1550.0, "elo_ci95": [1500.0, 1600.0]},
        "Y": {"elo": 1450.0, "elo_ci95": [1400.0, 1500.0]},
    }
    without = {
        "excluded": 2,
        "games": 8,
        "ratings": {"X": {"elo": 1480.0}, "Y": {"elo": 1460.0}},
        "change": {"X": {"elo": -70.0}, "Y": {"elo": 10.0}},
    }
    found = failure_headline(ratings, without)
    assert found["moved"] == ["X"]  # 1480 lies outside [1500, 1600]
    assert found["by_contestant"]["X"]["change"] == -70.0
    assert found["headline"] == (
        "2 game(s) hinged on a losing seat's rule failure; without them the Elo of X "
        "leaves its 95% interval"
    )
    calm = failure_headline(ratings, {"excluded": 0, "games": 10, "ratings": ratings})
    assert calm["headline"] is None and calm["moved"] == []
