"""Validity: do the rating intervals separate the contestants (hand-made ratings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandbox.analysis.validity import separation
from tests.analysis.builders import (
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)


def rating(elo: float, low: float, high: float) -> dict[str, Any]:
    return {"elo": elo, "elo_ci95": [low, high], "openskill_mu": 25.0, "openskill_mu_ci95": None}


def test_pairs_whose_intervals_exclude_each_other_are_separated() -> None:
    found = separation(
        {
            "a": rating(1600, 1550, 1650),
            "b": rating(1400, 1350, 1450),
            "c": rating(1420, 1380, 1460),
        },
        games=40,
    )
    assert found is not None
    assert [(p["a"], p["b"], p["separated"]) for p in found["pairs"]] == [
        ("a", "b", True),
        ("a", "c", True),
        ("b", "c", False),
    ]
    assert (found["separated"], found["total"]) == (2, 3)
    # b and c: half-widths 50 + 40 = 90 over a gap of 20: 40 · (90/20)² = 810 games
    assert found["closest"]["games_needed"] == 810
    assert "too small to separate 1 of 3 pairs" in found["warning"]
    assert "about 810 games" in found["warning"]


def test_a_study_that_separates_everyone_has_no_warning() -> None:
    found = separation({"a": rating(1600, 1550, 1650), "b": rating(1400, 1350, 1450)}, games=10)
    assert found is not None and found["warning"] is None and found["closest"] is None


def test_equal_points_say_so_and_one_contestant_is_no_comparison() -> None:
    found = separation({"a": rating(1500, 1400, 1600), "b": rating(1500, 1450, 1550)}, games=10)
    assert found is not None and found["closest"]["games_needed"] is None
    assert "same rating" in found["warning"]
    assert separation({"a": rating(1500, 1400, 1600)}, games=10) is None
    # the OpenSkill scale has no interval here: nothing to compare
    assert separation({"a": rating(1, 0, 2), "b": rating(5, 4, 6)}, 3, "openskill_mu") is None


def test_a_study_too_small_to_separate_is_flagged(tmp_path: Path) -> None:
    """Two games, each side winning one: the summary's separation says so."""
    from sandbox.analysis.load import load_games
    from sandbox.analysis.summary import summarise_games

    lost = {s: ("lose" if r == "win" else "win") for s, r in KILLER_RESULTS.items()}
    for name, results in (("a", KILLER_RESULTS), ("b", lost)):
        write_transcript(
            tmp_path / f"{name}.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, results
        )
    found = summarise_games(load_games([tmp_path]))["validity"]["separation"]
    assert found["total"] == 1 and found["separated"] == 0
    assert found["warning"].startswith("the study is too small to separate 1 of 1 pairs")


def test_an_interval_without_spread_separates_nothing() -> None:
    # one contestant won every game: every resample gives the same ratings
    found = separation({"a": rating(1690, 1690, 1690), "b": rating(1309, 1309, 1309)}, games=4)
    assert found is not None and found["separated"] == 0
    assert found["pairs"][0]["no_spread"] and found["closest"]["games_needed"] is None
    assert "has no spread" in found["warning"]
