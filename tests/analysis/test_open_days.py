"""Open-day behaviour metrics (issue 42 item 5; sandbox/analysis/open_days.py,
docs/study-reference.md "Open discussion") on a hand-made event list whose answers
are worked out by hand below, and the ``discussion`` table in the export."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.export import export
from sandbox.analysis.open_days import Message, discussion_summary, is_reply, open_days
from sandbox.analysis.tables import rows_of
from sandbox.transcript import read_game
from tests.analysis.builders import write_transcript

# Seats 1, 2 are killers; 3 police; 4 a civilian (the police's side, KG-12).
ROLES = {1: "killer", 2: "killer", 3: "police", 4: "civilian"}
WHO = {1: "K", 2: "K", 3: "P", 4: "P"}


def speech(day: int, seat: int, **claims: Any) -> tuple[str, dict[str, Any]]:
    return ("killer.speech", {"day": day, "seat": seat, "text": "…", "context": "open", **claims})


def answers(day: int, number: int, posted: list[int]) -> tuple[str, dict[str, Any]]:
    data = {"day": day, "round": number, "posted": posted, "waited": [], "fell_back": []}
    return ("discussion.answers", data)


def closed_round(day: int, number: int, accepted: list[int]) -> tuple[str, dict[str, Any]]:
    return ("discussion.round", {"day": day, "round": number, "accepted": accepted})


def opened(day: int, seats: list[int]) -> tuple[str, dict[str, Any]]:
    data = {"day": day, "seats": seats, "messages_per_seat": 3, "messages_per_day": 9}
    return ("discussion.opened", {**data, "quiet_rounds": 1})


EVENTS = [
    # Day 1, seats 1-4 living.
    opened(1, [1, 2, 3, 4]),
    answers(1, 1, [1, 3]),
    ("discussion.order", {"day": 1, "round": 1, "order": [3, 1]}),
    speech(1, 3, accuse=[1]),  # #1, round 1: names 1
    speech(1, 1, accuse=[3]),  # #2, round 1: names 3, who just named 1 -> a reply
    closed_round(1, 1, [3, 1]),
    answers(1, 2, [2]),
    speech(1, 2, vouch=[1]),  # #3, round 2: names 1, whose last message named 3 -> none
    closed_round(1, 2, [2]),
    answers(1, 3, [3]),
    speech(1, 3, accuse=[1, 2]),  # #4, round 3: 1 named 3 in #2, 3 silent since -> a reply
    closed_round(1, 3, [3]),
    answers(1, 4, []),
    closed_round(1, 4, []),  # a quiet round: the day ends
    ("discussion.closed", {"day": 1, "round": 4, "reason": "quiet"}),
    # Night 2 kills seat 2 (not an open day's event: read by nobody here).
    ("killer.dawn", {"day": 2, "victim": 2, "role": None}),
    # Day 2, seats 1, 3, 4 living.
    opened(2, [1, 3, 4]),
    answers(2, 1, [3, 4]),
    speech(2, 4, accuse=[3]),  # #1, round 1: names 3
    speech(2, 3),  # #2, round 1: names nobody
    closed_round(2, 1, [4, 3]),
    answers(2, 2, [3]),
    speech(2, 3, accuse=[4]),  # #3, round 2: 4 named 3, but 3 spoke since (#2) -> none
    closed_round(2, 2, [3]),
    ("discussion.closed", {"day": 2, "round": 2, "reason": "no_budget"}),
]

# (day, seat) -> messages, replies, first_round, first_position, silent (by hand)
EXPECTED = {
    (1, 1): (1, 1, 1, 2, False),
    (1, 2): (1, 0, 2, 3, False),
    (1, 3): (2, 1, 1, 1, False),
    (1, 4): (0, 0, None, None, True),
    (2, 1): (0, 0, None, None, True),
    (2, 3): (2, 0, 1, 2, False),
    (2, 4): (1, 0, 1, 1, False),
}


@pytest.fixture
def game_path(tmp_path: Path) -> Path:
    return write_transcript(tmp_path / "open.jsonl", "killer", ROLES, WHO, EVENTS, {1: "win"})


def test_each_open_day_is_read_with_its_rounds_and_messages(game_path: Path) -> None:
    days = open_days(read_game(game_path).events)
    assert [(d.day, d.seats, d.rounds, len(d.messages)) for d in days] == [
        (1, (1, 2, 3, 4), 4, 4),
        (2, (1, 3, 4), 2, 3),
    ]
    assert days[0].messages[1] == Message(1, 2, 1, frozenset({3}))
    assert days[0].messages[3].named == {1, 2}


def test_a_reply_names_a_seat_who_just_named_the_poster(game_path: Path) -> None:
    day1, day2 = open_days(read_game(game_path).events)
    assert [is_reply(day1.messages, i) for i in range(4)] == [False, True, False, True]
    assert [is_reply(day2.messages, i) for i in range(3)] == [False, False, False]


def test_the_discussion_rows_hold_the_hand_computed_figures(game_path: Path) -> None:
    rows = rows_of([read_game(game_path)], "discussion")
    got = {
        (r["day"], r["seat"]): (
            r["messages"],
            r["replies"],
            r["first_round"],
            r["first_position"],
            r["silent"],
        )
        for r in rows
    }
    assert got == EXPECTED
    assert {r["side"] for r in rows if r["seat"] == 4} == {"police"}  # civilians: police side
    assert {(r["day"], r["rounds"], r["day_messages"]) for r in rows} == {(1, 4, 4), (2, 2, 3)}


def test_the_summary_by_side_matches_the_formulas(game_path: Path) -> None:
    """Killers: seat-days (1,d1) (2,d1) (1,d2); 2 messages; 1 reply; first rounds
    1 and 2; one silent. Police side: (3,d1) (4,d1) (3,d2) (4,d2); 5 messages; 1
    reply; first rounds 1, 1, 1; one silent. All: 7 seat-days, 7 messages, 2
    replies, first rounds 1, 2, 1, 1, 1, two silent."""
    summary = discussion_summary(rows_of([read_game(game_path)], "discussion"))
    assert summary["killer"] == {
        "seat_days": 3,
        "messages_per_seat": round(2 / 3, 4),
        "reply_share": 0.5,
        "time_to_first_message": 1.5,
        "silence_share": round(1 / 3, 4),
    }
    assert summary["police"] == {
        "seat_days": 4,
        "messages_per_seat": 1.25,
        "reply_share": 0.2,
        "time_to_first_message": 1.0,
        "silence_share": 0.25,
    }
    assert summary["all"] == {
        "seat_days": 7,
        "messages_per_seat": 1.0,
        "reply_share": round(2 / 7, 4),
        "time_to_first_message": 1.2,
        "silence_share": round(2 / 7, 4),
    }


def test_a_game_without_open_days_has_no_discussion_rows(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "turns.jsonl", "killer", ROLES, WHO, EVENTS[15:16], None)
    assert rows_of([read_game(path)], "discussion") == []
    assert discussion_summary([])["all"]["messages_per_seat"] is None


def test_the_discussion_table_is_exported_with_the_others(game_path: Path, tmp_path: Path) -> None:
    written = export([read_game(game_path)], tmp_path / "out", "csv")
    assert tmp_path / "out" / "discussion.csv" in written
    with (tmp_path / "out" / "discussion.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(EXPECTED)
    assert {(r["day"], r["seat"], r["messages"], r["silent"]) for r in rows} >= {
        ("1", "3", "2", "False"),
        ("1", "4", "0", "True"),
    }
