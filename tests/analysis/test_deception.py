"""Deceive and detect (issue 39, item 2): the duels of a hand-built Killer game
counted by hand, Spearman's ρ on hand cases, and the summary's ratings with
their intervals."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.analysis.deception import deception_rows, deception_summary, duels_of, spearman
from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from tests.analysis.test_statements import K_EVENTS, K_ROLES, Line, write

# 1, 2 killers (contestants A, B); 3, 4 police (C); 5, 6 civilians (D); 6 dies at dawn
WHO = {1: "A", 2: "B", 3: "C", 4: "C", 5: "D", 6: "D"}


def test_the_duels_of_a_hand_built_game(tmp_path: Path) -> None:
    duels = duels_of(write(tmp_path / "k.jsonl", "killer", K_ROLES, K_EVENTS, contestants=WHO))
    # deceive: only the killers' statements (5: seat 1, 7: seat 2). Listeners with
    # a ballot on another side: 4 (voted 1) and 5 (voted 1); seat 2 is seat 1's
    # partner, seat 3 cast no ballot. Seat 1 vouched for seat 2 (a lie): a ballot
    # off seat 2 went along with it, so both listeners were deceived. Seat 2's lie
    # was a promise to vote 4: neither listener voted 4.
    assert sorted(duels.found["deceive"]) == sorted(
        [
            ("A", "C (listener)"),
            ("A", "D (listener)"),
            ("C (listener)", "B"),
            ("D (listener)", "B"),
        ]
    )
    # detect: ballots by seats without a hidden role (4 and 5 voted 1, a killer)
    # against each living killer (1 and 2); the killers' own ballots are left out
    assert sorted(duels.found["detect"]) == sorted(
        [
            ("C", "A (hidden)"),
            ("C", "B (hidden)"),
            ("D", "A (hidden)"),
            ("D", "B (hidden)"),
        ]
    )
    assert duels.rated == {"deceive": {"A", "B"}, "detect": {"C", "D"}}


def test_a_detect_duel_is_lost_on_an_honest_seat_and_drawn_ballots_are_left_out(
    tmp_path: Path,
) -> None:
    events: list[Line] = [
        K_EVENTS[3],  # seat 6 dies
        ("killer.ballots", {"day": 1, "round": 0, "ballots": {"3": 5, "4": 1, "5": 2},
                            "tally": {}, "drawn": [5]}, "public"),
    ]  # fmt: skip
    duels = duels_of(write(tmp_path / "k.jsonl", "killer", K_ROLES, events, contestants=WHO))
    assert sorted(duels.found["detect"]) == sorted(
        [
            ("A (hidden)", "C"),  # seat 3 voted 5, a civilian: lost to both killers
            ("B (hidden)", "C"),
            ("C", "A (hidden)"),  # seat 4 voted 1
            ("C", "B (hidden)"),
        ]
    )
    assert duels.found["deceive"] == []


def test_spearman_on_hand_cases() -> None:
    assert spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties take their mean rank: x ranks 1.5, 1.5, 3; y ranks 1, 2, 3
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(1.5 / (1.5 * 2) ** 0.5)
    assert spearman([1, 2], [1, 2]) is None  # fewer than three contestants
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # no spread


def test_the_summary_rates_each_part_with_an_interval(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    for name in ("a", "b", "c"):
        write(tmp_path / "g" / f"{name}.jsonl", "killer", K_ROLES, K_EVENTS, contestants=WHO)
    games = load_games([tmp_path / "g"]).games
    found = deception_summary(games, samples=50)
    assert found is not None
    by = found["by_contestant"]
    assert set(by) == {"A", "B", "C", "D"}
    a, b = by["A"]["deceive"], by["B"]["deceive"]
    assert (a["duels"], a["won"]["value"]) == (6, 1.0)  # 2 duels a game, all won
    assert (b["duels"], b["won"]["value"]) == (6, 0.0)
    assert a["elo"] > b["elo"]
    for part in (a, b):
        low, high = part["elo_ci95"]
        assert low <= part["elo"] <= high
    assert by["A"]["detect"] is None and by["C"]["deceive"] is None
    assert by["C"]["detect"]["won"]["value"] == 1.0
    # no contestant is rated in both parts here: no correlation
    assert found["rank_correlation"] == {"spearman": None, "ci95": None, "contestants": 0}
    assert summarise_games(load_games([tmp_path / "g"]), samples=50)["deception"] == found
    rows = deception_rows({"deception": found})
    assert [r[0] for r in rows] == ["A", "B", "C", "D"] and rows[0][2] == "–"


def test_no_duel_no_summary(tmp_path: Path) -> None:
    game = write(tmp_path / "k.jsonl", "killer", K_ROLES, [K_EVENTS[3]], contestants=WHO)
    assert deception_summary([game]) is None
