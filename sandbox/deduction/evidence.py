"""Typed evidence: what one seat said or did, in the terms a belief weighs.

Every statement about a role is a set of roles ("seat 4 is a wolf": the hidden
roles; "seat 4 is not the seer": every role but the seer), so a negation is the
complement and needs no flag, and the structured fields of the variants map in
directly:

=====================  ===========================================================
field / words           evidence
=====================  ===========================================================
``claim`` = R           :class:`RoleClaim` (speaker, {R}); "I am not R": all − {R}
``accuse`` = [t]        :class:`SeatIs` (speaker, t, hidden roles)
``vouch`` = [t]         :class:`SeatIs` (speaker, t, all − hidden roles)
faction accusation      :class:`SeatIs` (speaker, t, the named faction's roles)
police/seer + accuse    :class:`CheckReport` (speaker, t, result roles)
"I will vote t"         :class:`VotePromise` (speaker, t)
a public ballot         :class:`Ballot` (voter, t)
a night victim          :class:`Killed` (t)
=====================  ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

Roles = frozenset[str]


@dataclass(frozen=True, slots=True)
class RoleClaim:
    """``speaker`` says its own role is one of ``roles``."""

    speaker: int
    roles: Roles


@dataclass(frozen=True, slots=True)
class SeatIs:
    """``speaker`` says ``target``'s role is one of ``roles`` (an accusation when
    ``roles`` are hidden roles, a vouch when they are none of them)."""

    speaker: int
    target: int
    roles: Roles


@dataclass(frozen=True, slots=True)
class CheckReport:
    """``speaker`` says its own check found ``target`` to be one of ``roles``; it
    also claims the checking role (the table's ``checker``)."""

    speaker: int
    target: int
    roles: Roles


@dataclass(frozen=True, slots=True)
class VotePromise:
    """``speaker`` says it will vote for ``target``."""

    speaker: int
    target: int


@dataclass(frozen=True, slots=True)
class Ballot:
    """``voter`` voted for ``target`` (a public ballot; abstentions say nothing)."""

    voter: int
    target: int


@dataclass(frozen=True, slots=True)
class Killed:
    """The hidden side killed ``target`` at night (where the rules let it kill
    one of its own, this is evidence; where they do not, give it as knowledge)."""

    target: int


Evidence = RoleClaim | SeatIs | CheckReport | VotePromise | Ballot | Killed


def seats_of(item: Evidence) -> tuple[int, ...]:
    """The seats whose roles the likelihood of ``item`` depends on."""
    if isinstance(item, RoleClaim):
        return (item.speaker,)
    if isinstance(item, SeatIs | CheckReport | VotePromise):
        return (item.speaker, item.target)
    if isinstance(item, Ballot):
        return (item.voter, item.target)
    return (item.target,)
