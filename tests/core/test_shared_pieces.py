"""Pieces the variants share in sandbox.core (issue 36, one concept one room):
who sees an event named by one of its fields, the referee's own events, and a
game file's fixed seats checked against the line-up."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import sandbox.games.killer.events as kg
import sandbox.games.werewolf.events as ww
from sandbox.core.events import (
    AudienceEvent,
    RefereeEvent,
    SeatEvent,
    TeamMessage,
    event_from_json,
)
from sandbox.core.lineup import check_fixed_seats


def test_a_seat_event_is_seen_by_the_seats_its_named_field_holds() -> None:
    card, team = kg.RoleCard(seat=3, role="police"), kg.TeamList("killer", (4, 1))
    protection = ww.Protection(night=1, doctor=2, target=5)
    message = TeamMessage(day=1, seat=4, text="", team="killer", audience=(4, 6))
    assert isinstance(card, SeatEvent) and isinstance(message, AudienceEvent)
    assert card.visibility().to_json() == [3]
    assert team.visibility().to_json() == [1, 4]
    assert protection.visibility().to_json() == [2]  # seen_by = "doctor"
    assert message.visibility().to_json() == [4, 6]
    bids = ww.Bids(day=1, turn=1, bids={"2": 1})
    assert isinstance(bids, RefereeEvent) and bids.visibility().to_json() == "referee"


def test_the_named_field_is_data_so_a_transcript_line_rebuilds_the_audience() -> None:
    line = ww.Protection(night=1, doctor=2, target=5).to_json()
    assert line["vis"] == [2] and set(line["data"]) == {"night", "doctor", "target"}
    assert event_from_json(line).visibility().to_json() == [2]


@dataclass(frozen=True)
class _Fix:
    seat: int
    role: str


def _words(fixed: int, role: str, allowed: int) -> str:
    return f"{fixed} {role} > {allowed}"


def test_fixed_seats_fit_the_table_once_each_and_the_lineup() -> None:
    check_fixed_seats([_Fix(1, "wolf"), _Fix(2, "seer")], 5, {"wolf": 1, "seer": 1}, _words)
    with pytest.raises(ValueError, match=r"\[6\] out of range; allowed: 1..5"):
        check_fixed_seats([_Fix(6, "wolf")], 5, {"wolf": 1}, _words)
    with pytest.raises(ValueError, match=r"a seat is fixed twice \(\[2, 2\]\)"):
        check_fixed_seats([_Fix(2, "wolf"), _Fix(2, "seer")], 5, {"wolf": 1, "seer": 1}, _words)
    with pytest.raises(ValueError, match="2 wolf > 1"):
        check_fixed_seats([_Fix(1, "wolf"), _Fix(2, "wolf")], 5, {"wolf": 1}, _words)
