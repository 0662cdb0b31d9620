"""Pieces the variants share in sandbox.core (issue 36, one concept one room):
who sees an event named by one of its fields, the referee's own events, and a
game file's fixed seats checked against the line-up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from sandbox.core.events import AudienceEvent, RefereeEvent, SeatEvent, event_from_json
from sandbox.core.lineup import check_fixed_seats


@dataclass(frozen=True, slots=True)
class _Told(SeatEvent):
    kind: ClassVar[str] = "test_pieces.told"
    seat: int
    note: str


@dataclass(frozen=True, slots=True)
class _Checked(SeatEvent):
    kind: ClassVar[str] = "test_pieces.checked"
    seen_by: ClassVar[str] = "checker"
    checker: int
    seat: int


@dataclass(frozen=True, slots=True)
class _Team(SeatEvent):
    kind: ClassVar[str] = "test_pieces.team"
    seen_by: ClassVar[str] = "members"
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Heard(AudienceEvent):
    kind: ClassVar[str] = "test_pieces.heard"
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Sealed(RefereeEvent):
    kind: ClassVar[str] = "test_pieces.sealed"
    seat: int


def test_a_seat_event_is_seen_by_the_seats_its_named_field_holds() -> None:
    assert _Told(3, "x").visibility().to_json() == [3]
    assert _Checked(checker=2, seat=5).visibility().to_json() == [2]
    assert _Team((4, 1)).visibility().to_json() == [1, 4]
    assert _Heard((6,)).visibility().to_json() == [6]
    assert _Sealed(1).visibility().to_json() == "referee"


def test_the_named_field_is_data_so_a_transcript_line_rebuilds_the_audience() -> None:
    line = _Checked(checker=2, seat=5).to_json()
    assert line["vis"] == [2] and "seen_by" not in line["data"]
    assert event_from_json(line).visibility() == _Checked(checker=2, seat=5).visibility()


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
