"""What a variant tells the statements table (issue 39; docs/study-reference.md,
"Statements: who lied"): which events are statements, the claims their
structured fields make, and what a seat learns of the roles from each event it
sees. A variant names its :class:`StatementRules` in its
:class:`sandbox.core.variant.Research` (``Research.statements()``); the
analysis (``sandbox.analysis.statements``) reads every variant through it.

Events are read as rows (``{"seq", "kind", **data}``, as ``GameRecord.events``),
roles as sets of the variant's role labels (``VariantInfo.roles``). The helpers
below read the shapes several variants share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Roles = frozenset[str]
Row = Mapping[str, Any]
Fact = tuple[int, Roles]  # "this seat has one of these roles"


@dataclass(frozen=True)
class Said:
    """One claim a statement's structured fields make: ``kind`` is ``role``
    (``target`` is the speaker), ``check``, ``accuse`` or ``vouch``; ``roles``
    what it says the target has (empty: nothing settles it)."""

    kind: str
    target: int
    roles: Roles


ClaimReader = Callable[[Sequence[Row], int], Iterator[Said]]
"""The structured claims of the statement at an index of the game's events
(the events before it are there for a claim that refers back)."""

FactReader = Callable[[Row, int, Mapping[int, Roles], Sequence[int]], Iterator[Fact]]
"""What ``seat``, which saw ``event``, learns from it: (event, seat, what that
seat knew so far per seat, every seat of the game) -> facts."""


@dataclass(frozen=True)
class StatementRules:
    """A variant's statements.

    ``text``: statement event kind -> the field holding its words.
    ``claims``: the claims of a statement's structured fields.
    ``facts``: a seat's knowledge of the roles, event by event (its card, its
    team list, its checks, the roles revealed).
    ``checks``: check-result kind -> the field naming the seat checked (a check
    report is a lie unless the speaker saw such a result).
    ``ballots``: kinds recording a vote as ``{"day", "ballots": {seat: target
    or None}}``; ``candidates``: kinds announcing a vote's ``candidates``.
    """

    text: Mapping[str, str]
    claims: ClaimReader
    facts: FactReader
    checks: Mapping[str, str] = field(default_factory=dict)
    ballots: frozenset[str] = frozenset()
    candidates: frozenset[str] = frozenset()


# ------------------------------------------------------- shared shapes


def seat_of(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def recorded_claims(event: Row, every: Roles, hidden: Roles) -> Iterator[Said]:
    """The ``claim``/``accuse``/``vouch`` fields of a speech (a role claimed
    or "none"; seats said to hold a hidden role; seats said not to): the
    shape the referee records where a speech states its claims."""
    speaker = seat_of(event.get("seat"))
    if speaker is None:
        return
    claimed = str(event.get("claim") or "none")
    if claimed in every:
        yield Said("role", speaker, frozenset((claimed,)))
    for target in event.get("accuse") or ():
        yield Said("accuse", int(target), hidden)
    for target in event.get("vouch") or ():
        yield Said("vouch", int(target), every - hidden)


def team_facts(event: Row, every: Roles, seats: Sequence[int]) -> Iterator[Fact]:
    """A team list ``{"role", "members"}``: the members hold the role, and
    every other seat of the game does not."""
    role = frozenset((str(event.get("role")),))
    members = {int(m) for m in event.get("members") or ()}
    for seat in seats:
        yield seat, role if seat in members else every - role


def named(label: object, every: Roles, side_of: Callable[[str], str]) -> Roles | None:
    """The roles a label stands for: a role itself, or a side (every role
    playing for it); None for anything else."""
    text = str(label)
    if text in every:
        return frozenset((text,))
    found = frozenset(r for r in every if side_of(r) == text)
    return found or None


def each_named(mapping: object, every: Roles, side_of: Callable[[str], str]) -> Iterator[Fact]:
    """A public ``{seat: role or side}`` mapping (the roles of the dead, every
    role at the end)."""
    if not isinstance(mapping, Mapping):
        return
    for seat, label in mapping.items():
        roles = named(label, every, side_of)
        if roles is not None:
            yield int(seat), roles
