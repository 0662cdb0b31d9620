"""`sandbox study` prints the validity report under its leaderboard."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.cli.validity import print_validity, warn
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
    assert set(validity) == {"separation", "rule_failures", "seating", "deception", "anchor"}
    assert validity["anchor"] is None  # no frozen reference among these contestants
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


def test_the_anchor_and_the_detectability_tables_are_printed() -> None:
    from sandbox.cli.validity import print_detectability

    console = Console(record=True, width=160)
    anchor = {
        "reference": "ref",
        "note": "Elo anchored to the frozen reference ref (killer/level-3/v1), fixed at 1500",
        "ratings": {"A": {"elo": 1647.2, "elo_ci95": [1580.0, 1700.0]}, "ref": {"elo": 1500.0}},
    }
    print_validity(console, {"anchor": anchor})
    row = {"named": 5, "of": 13, "share": 0.3846, "ci95": [0.1771, 0.6448], "chance": 0.4154}
    person = {**row, "answers": 3, "false_alarms": {"named": 1, "of": 2}}
    print_detectability(
        console,
        {
            "question": "which seats were played by AI?",
            "games": 2,
            "overall": person,
            "by_person": {"p-7f3a": person},
            "by_model": {"K": row},
        },
    )
    text = console.export_text()
    assert (
        "fixed at 1500" in text and "1500.0 (fixed)" in text and "1647.2 [1580.0, 1700.0]" in text
    )
    assert "detectability: which seats were played by AI? (2 games)" in text
    assert "person p-7f3a" in text and "5/13 = 0.3846 [0.1771, 0.6448]" in text
    assert "seats of K" in text


def test_a_warning_is_one_line_of_text_never_markup() -> None:
    console = Console(record=True, width=200)
    warn(console, "pooled [bold]two[/bold] setups: [red]")
    assert console.export_text() == "warning: pooled [bold]two[/bold] setups: [red]\n"
