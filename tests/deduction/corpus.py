"""The hand-written speech corpus and its expected evidence, in a short form:

``claim X`` / ``claim !X`` (the speaker is / is not X), ``is N X`` / ``is N !X``,
``check N X`` / ``check N !X`` (the speaker's own check), ``vote N``, ``accuse N``
(the table's hidden roles), ``vouch N`` (none of them). ``X`` is a role or a
group of the variant's table. Every speech is said by seat 2 of a 16-seat table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sandbox.deduction.evidence import CheckReport, Evidence, RoleClaim, SeatIs, VotePromise
from sandbox.deduction.tables import RoleTable, load_table

HERE = Path(__file__).parent
SPEAKER = 2
SEATS = range(1, 17)


@dataclass(frozen=True)
class Case:
    variant: str
    text: str
    expect: tuple[str, ...]


def cases(language: str) -> list[Case]:
    raw = json.loads((HERE / f"corpus_{language}.json").read_text(encoding="utf-8"))
    return [Case(c["v"], c["text"], tuple(c["expect"])) for c in raw]


def table(variant: str) -> RoleTable:
    return load_table(variant)


def expected(short: str, table: RoleTable) -> Evidence:
    """One line of the short form as evidence."""

    def roles(label: str) -> frozenset[str]:
        if label.startswith("!"):
            return table.not_(table.resolve(label[1:]))
        return table.resolve(label)

    word, *rest = short.split()
    if word == "claim":
        return RoleClaim(SPEAKER, roles(rest[0]))
    seat = int(rest[0])
    if word == "is":
        return SeatIs(SPEAKER, seat, roles(rest[1]))
    if word == "check":
        return CheckReport(SPEAKER, seat, roles(rest[1]))
    if word == "accuse":
        return SeatIs(SPEAKER, seat, table.hidden)
    if word == "vouch":
        return SeatIs(SPEAKER, seat, table.honest)
    if word == "vote":
        return VotePromise(SPEAKER, seat)
    raise ValueError(short)
