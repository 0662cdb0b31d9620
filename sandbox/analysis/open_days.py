"""Behaviour metrics of open discussion days (issue 42 item 5; the protocol:
docs/rules-open-discussion.md, OD-1 … OD-10), read from a transcript's events
alone, the same for every variant: messages per seat, replies, the time to a
seat's first message on the virtual clock (rounds), and the silence share by
side. Formulas: docs/study-reference.md, "Open discussion".

An open day is read from its ``discussion.*`` events: ``discussion.opened``
names the seats living at its start; each ``discussion.round`` lists the seats
whose message was accepted in that round, in order (OD-5); the events between
the round's ``discussion.answers`` and its close that carry a ``seat`` are
those seats' messages (a variant may make several events of one message). A
message *names* every seat in its ``accuse`` and ``vouch`` lists and its
``target`` (KG-14, WW-12, FF-14/15 statements), never the words of its text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.transcript import EventRow, Transcript

Row = dict[str, Any]
NAMING = ("accuse", "vouch", "target")  # the fields by which a message names seats


@dataclass(frozen=True, slots=True)
class Message:
    """One accepted message of an open day: its round (the virtual clock, from
    1), its place in the day (from 1), its poster and the seats it names."""

    round: int
    position: int
    seat: int
    named: frozenset[int]


@dataclass
class OpenDayRecord:
    """One open day as the transcript tells it."""

    day: int
    seats: tuple[int, ...]  # living at its start: the seats it asked
    messages: list[Message] = field(default_factory=list)
    rounds: int = 0  # rounds closed


def named_in(event: Mapping[str, Any]) -> set[int]:
    """The seats an event of a message names (its claims' seats and its target)."""
    found: set[int] = set()
    for name in NAMING:
        value = event.get(name)
        values = value if isinstance(value, list | tuple) else [value]
        found.update(int(v) for v in values if isinstance(v, int) and not isinstance(v, bool))
    return found


def open_days(events: Iterable[Mapping[str, Any]]) -> list[OpenDayRecord]:
    """Every open day of a game's events (rows: ``kind`` and the event's fields),
    in order; one cut short by the game's end keeps the rounds it closed."""
    days: list[OpenDayRecord] = []
    current: OpenDayRecord | None = None
    span: list[Mapping[str, Any]] = []  # the events of the round under way
    for event in events:
        kind = str(event.get("kind"))
        if kind == "discussion.opened":
            current = OpenDayRecord(int(event["day"]), tuple(int(s) for s in event["seats"]))
            days.append(current)
            span = []
        elif current is None:
            continue
        elif kind == "discussion.round":
            _close_round(current, int(event["round"]), event.get("accepted") or (), span)
            span = []
        elif kind == "discussion.closed":
            current = None
        elif not kind.startswith("discussion.") and isinstance(event.get("seat"), int):
            span.append(event)
    return days


def _close_round(
    day: OpenDayRecord, number: int, accepted: Iterable[int], span: Sequence[Mapping[str, Any]]
) -> None:
    day.rounds = max(day.rounds, number)
    for seat in accepted:
        named = set().union(*(named_in(e) for e in span if e.get("seat") == seat))
        day.messages.append(Message(number, len(day.messages) + 1, int(seat), frozenset(named)))


def is_reply(messages: Sequence[Message], index: int) -> bool:
    """Message ``index`` (by A) is a reply when it names a seat B whose latest
    message before it named A, with no message of A's in between: A answers a
    seat who just named it."""
    mine = messages[index]
    for other in mine.named - {mine.seat}:
        for earlier in reversed(messages[:index]):
            if earlier.seat == mine.seat:
                break  # A spoke since: what came before is answered already
            if earlier.seat == other and mine.seat in earlier.named:
                return True
    return False


def seat_day_rows(game: Transcript[EventRow]) -> list[Row]:
    """The ``discussion`` table's rows of a game (without the columns every table
    has, ``tables.rows_of`` adds them): one per (open day, seat living at its start)."""
    sides, who = game.sides, game.contestants
    rows: list[Row] = []
    for day in open_days(game.events):
        replies = [is_reply(day.messages, i) for i in range(len(day.messages))]
        for seat in day.seats:
            mine = [i for i, m in enumerate(day.messages) if m.seat == seat]
            first = day.messages[mine[0]] if mine else None
            rows.append(
                {
                    "variant": game.variant,
                    "day": day.day,
                    "seat": seat,
                    "side": sides.get(seat),
                    "contestant": who.get(seat),
                    "messages": len(mine),
                    "replies": sum(1 for i in mine if replies[i]),
                    "first_round": first.round if first else None,
                    "first_position": first.position if first else None,
                    "silent": not mine,
                    "rounds": day.rounds,
                    "day_messages": len(day.messages),
                }
            )
    return rows


def discussion_summary(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """side -> the four metrics over the ``discussion`` rows of that side, and
    ``"all"`` over every row (docs/study-reference.md, "Open discussion")."""
    groups: dict[str, list[Row]] = {"all": list(rows)}
    for row in rows:
        groups.setdefault(str(row["side"]), []).append(row)
    return {side: _figures(group) for side, group in sorted(groups.items())}


def _figures(rows: Sequence[Row]) -> dict[str, Any]:
    messages = sum(int(r["messages"]) for r in rows)
    spoke = [int(r["first_round"]) for r in rows if r["first_round"] is not None]
    return {
        "seat_days": len(rows),
        "messages_per_seat": _ratio(messages, len(rows)),
        "reply_share": _ratio(sum(int(r["replies"]) for r in rows), messages),
        "time_to_first_message": _ratio(sum(spoke), len(spoke)),
        "silence_share": _ratio(sum(1 for r in rows if r["silent"]), len(rows)),
    }


def _ratio(part: float, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
