"""Persuasion and belief calibration on a hand-built transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.persuasion import persuasion_items, persuasion_summary
from sandbox.analysis.summary import calibration
from sandbox.transcript import read_game
from tests.analysis.builders import KILLER_RESULTS, KILLER_ROLES, KILLER_WHO, write_transcript


def decision(seat: int, request: str) -> tuple[str, dict[str, Any]]:
    return (
        "core.decision",
        {
            "seat": seat,
            "request_id": request,
            "decision": "vote",
            "payload": {},
            "fallback": False,
            "fallback_reason": "",
        },
    )


def speech(seat: int) -> tuple[str, dict[str, Any]]:
    return ("killer.speech", {"day": 1, "seat": seat, "text": "...", "context": "day"})


EVENTS = [
    decision(3, "r1"),  # seq 0: seat 3's first probe
    decision(5, "r2"),  # seq 1: seat 5's first probe
    speech(4),  # seq 2
    speech(1),  # seq 3
    decision(3, "r3"),  # seq 4: seat 3's second probe
    speech(2),  # seq 5
    decision(5, "r4"),  # seq 6: seat 5's second probe
]
CALLS = [
    {"seat": 3, "request_id": "r1", "model": "m", "beliefs": {"1": "police", "2": "civilian"}},
    {"seat": 5, "request_id": "r2", "model": "m", "beliefs": {"1": {"killer": 0.5, "police": 0.5}}},
    {"seat": 3, "request_id": "r3", "model": "m", "beliefs": {"1": "killer", "2": "civilian"}},
    {
        "seat": 5,
        "request_id": "r4",
        "model": "m",
        "beliefs": {"1": {"killer": 0.2, "civilian": 0.8}},
    },
]


@pytest.fixture
def game(tmp_path: Path) -> Any:
    path = write_transcript(
        tmp_path / "p.jsonl",
        "killer",
        KILLER_ROLES,
        KILLER_WHO,
        EVENTS,
        KILLER_RESULTS,
        calls=CALLS,
    )
    return read_game(path)


def test_speeches_between_two_probes_share_the_change(game: Any) -> None:
    # seat 3: p_true of seat 1 goes 0 -> 1, of seat 2 stays 0: Δ = 0.5 over speeches by 4 and 1
    # seat 5: p_true of seat 1 goes 0.5 -> 0.2: Δ = -0.3 over speeches by 4, 1 and 2
    items = sorted((i.contestant, side, round(i.value, 6)) for i, side in persuasion_items(game))
    assert items == sorted(
        [
            ("P", "police", 0.25),
            ("K", "killer", 0.25),
            ("P", "police", -0.1),
            ("K", "killer", -0.1),
            ("K", "killer", -0.1),
        ]
    )


def test_persuasion_summary_by_contestant_and_side(game: Any) -> None:
    summary = persuasion_summary([game])
    assert summary is not None
    assert summary["by_contestant"]["P"]["value"] == pytest.approx(0.075)
    assert summary["by_contestant"]["K"]["value"] == pytest.approx(round(0.05 / 3, 4))
    assert summary["by_side"]["police"]["n"] == 2 and summary["overall"]["n"] == 5


def test_calibration_of_the_same_probes(game: Any) -> None:
    figures = calibration([game])
    assert figures is not None
    overall = figures["overall"]
    # seats 1 and 2 are killers. A certain wrong label scores 2, a certain right one 0;
    # {killer .5, police .5} scores .25 + .25; {killer .2, civilian .8} scores .64 + .64
    briers = [2.0, 2.0, 0.5, 0.0, 2.0, 1.28]
    assert overall["guesses"] == 6
    assert overall["brier"] == pytest.approx(round(sum(briers) / 6, 4))
    # most likely side right: r3's "killer" for seat 1 and r2's tie broken alphabetically
    assert overall["accuracy"] == pytest.approx(round(2 / 6, 4))
