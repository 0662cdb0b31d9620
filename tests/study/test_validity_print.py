"""`sandbox study` prints the validity report under its leaderboard."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.cli.validity import print_validity
from tests.analysis.builders import (
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)


def test_the_seating_table_and_the_failure_headline_are_printed(tmp_path: Path) -> None:
    write_transcript(
        tmp_path / "g.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, KILLER_RESULTS
    )
    validity = summarise_games(load_games([tmp_path]), samples=20)["validity"]
    assert set(validity) == {"separation", "rule_failures", "seating", "deception"}
    (setup,) = validity["seating"]
    assert setup.startswith("killer/") and setup.endswith("/6p")
    # one game: seat 2 (killer, spoke last) won as its side did: effect 0
    assert validity["seating"][setup]["effects"]["last_speaker"]["effect"] == 0.0
    console = Console(record=True, width=140)
    print_validity(console, validity)
    text = console.export_text()
    assert "seat and speaking order" in text and "last_speaker" in text
    headline = {
        "rule_failures": {
            "headline": "1 game(s) hinged on a losing seat's rule failure; without them every "
            "Elo stays inside its 95% interval",
            "by_contestant": {
                "X": {
                    "elo_with": 1510.0,
                    "elo_ci95_with": [1400, 1600],
                    "elo_without": 1490.0,
                    "change": -20.0,
                }
            },
        }
    }
    console = Console(record=True, width=140)
    print_validity(console, headline)
    text = console.export_text()
    assert "rating without games decided after a rule failure" in text and "-20.0" in text


def test_the_minimafia_table_is_printed_with_its_brier_score() -> None:
    from sandbox.cli.validity import print_minimafia

    found = {
        "games": 270,
        "by_contestant": {
            "a": {
                "m": 0.5,
                "m_ci95": [0.1, 0.9],
                "d": -0.2,
                "d_ci95": [-0.5, 0.1],
                "v": 1.2,
                "v_ci95": [0.9, 1.6],
            }
        },
        "cross_validation": {
            "folds": 5,
            "brier": {"model": 0.2},
            "reduction": {"coin": 0.2, "base_rate": None},
        },
    }
    console = Console(record=True, width=160)
    print_minimafia(console, found)
    text = console.export_text()
    assert "20.0% below a coin" in text and "– below the base rate" in text
    assert "0.5 [0.1, 0.9]" in text
    print_minimafia(console, None)  # not a Mini-Mafia study: nothing printed
