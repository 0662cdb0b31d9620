"""The seat board of a person's page: one row per seat — alive or dead, HP
where the variant has it, what this seat has learned of it (its partners, a
police check), its claims, accusations, vouches, proofs and protections, and
its votes by day — and the same seats as a grid to read at a glance (issue 38
item 3): alive or dead, the seat speaking now, the votes it has today.

Built only from the seat's own view: each history item's board effects (the
variant's ``VariantWords.board`` through :func:`sandbox.viewer.board.effects_of`)
folded in order, so the board can never show what the seat was not told.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sandbox.core.variant import SeatView
from sandbox.core.words import Words
from sandbox.viewer.board import effects_of
from sandbox.web.words import ui
from sandbox.words import board_columns, item_words, lang, phase_title, variant_words


def seat_marks(view: SeatView | None, language: str) -> dict[int, str]:
    """The seats a seat's options mark: itself ("you") and the seats its card
    names as its side ("partner", through its variant's ``VariantWords.team``)."""
    if view is None:
        return {}
    t = ui(language)
    words = variant_words(view.variant)
    team = words.team(view.private) if words is not None and words.team is not None else ()
    marks = {int(seat): t["partner_mark"] for seat in team}
    marks[view.seat] = t["you_mark"]
    return marks


@dataclass
class SeatRow:
    seat: int
    mark: str = ""  # "you", "partner"
    alive: bool = True
    hp: str = ""
    known: str = ""  # what this seat learned of it (a role, a faction, a check)
    said: list[str] = field(default_factory=list)  # claims, by day
    votes: list[str] = field(default_factory=list)  # "Day 1: seat 5"
    speaking: bool = False  # the seat whose turn it is to speak
    votes_today: int = 0  # today's ballots naming this seat (each voter's latest)


def seat_board(
    view: SeatView, language: str, said: Sequence[Words] | None = None
) -> tuple[list[SeatRow], bool]:
    """The rows, and whether the board has an HP column (``said``: the history
    items' words, when already known)."""
    seats = _seats(view)
    marks = seat_marks(view, language)
    rows = {s: SeatRow(s, marks.get(s, "")) for s in seats}
    variant = view.variant
    hp = variant is not None and "hp" in board_columns(variant)
    L = lang(language, variant)
    if said is None:
        said = [item_words(variant, item, view.seat, language) for item in view.history]
    today = view.public.get("day")
    ballots: dict[int, str] = {}  # today's latest ballot of each voter, in words
    for item, words in zip(view.history, said, strict=True):
        data = {**item.facts, "seat": item.speaker} if item.speaker is not None else item.facts
        fx = effects_of(item.kind, data, words, language, variant)
        when = phase_title(item.day, "day", language, variant)
        for seat in fx.get("dead", ()):
            _row(rows, seat).alive = False
        for seat, value in (fx.get("hp") or {}).items():
            _row(rows, seat).hp = str(value)
        for seat, value in (fx.get("role") or {}).items():
            _row(rows, seat).known = str(value)
        for seat, value in (fx.get("claim") or {}).items():
            _row(rows, seat).said.append(f"{when}: {value}")
        for seat, value in (fx.get("vote") or {}).items():
            _row(rows, seat).votes.append(f"{when}: {value}" if not L.zh else f"{when}：{value}")
            if item.day == today:
                ballots[int(str(seat))] = str(value)
    for target in map(_seat_named, ballots.values()):
        if target is not None:
            _row(rows, target).votes_today += 1
    order = view.public.get("speaking_order")
    if isinstance(order, list | tuple) and order:
        _row(rows, order[0]).speaking = True  # those still to speak, the speaker first
    return [rows[s] for s in sorted(rows)], hp


def _seat_named(ballot: str) -> int | None:
    """The seat a ballot in words names ("seat 5", "5号"); None for "nobody"."""
    found = re.fullmatch(r"\D*(\d+)\D*", ballot)
    return int(found.group(1)) if found else None


def _seats(view: SeatView) -> list[int]:
    public = view.public
    living = [int(s) for s in public.get("living") or ()]
    dead = [int(d["seat"]) for d in public.get("dead") or () if isinstance(d, dict)]
    players = public.get("players")
    found = set(living) | set(dead) | {view.seat}
    if isinstance(players, int):
        found |= set(range(1, players + 1))
    return sorted(found)


def _row(rows: dict[int, SeatRow], seat: object) -> SeatRow:
    number = int(str(seat))
    if number not in rows:
        rows[number] = SeatRow(number)
    return rows[number]
