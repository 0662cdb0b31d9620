"""Every statement of a recorded game broken into its claims.

A *statement* is an event its variant names in its
:class:`~sandbox.core.statements.StatementRules` (``text``: speeches, last
words, day statements, pack messages). Its claims come from two sources:

* ``fields``: what the referee recorded in structure, read by the variant
  (``StatementRules.claims``: a claimed role, accused and vouched seats, e.g.
  WW-12/KG-14's ``claim``/``accuse``/``vouch``, FF-13..15's proofs,
  accusations and protections);
* ``words``: the text read by :func:`sandbox.deduction.speech.parse_speech`
  with the variant's role table (role claims, statements about seats, check
  reports, vote promises). A words claim the fields already state is dropped,
  so one claim is one row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sandbox.core.statements import StatementRules
from sandbox.deduction.evidence import CheckReport, Evidence, RoleClaim, SeatIs, VotePromise
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.tables import RoleTable
from sandbox.transcript import EventRow, Transcript

Roles = frozenset[str]

CLAIM_TYPES = ("role", "check", "accuse", "vouch", "promise")


@dataclass(frozen=True)
class Claim:
    """One claim of ``speaker``: ``kind`` (a CLAIM_TYPES entry), the seat it is
    about (the speaker itself for a role claim) and the roles it says that seat
    has (empty for a promise, or when nothing settles what was said)."""

    kind: str
    speaker: int
    target: int
    roles: Roles
    source: str


def claims_of(
    game: Transcript[EventRow], index: int, table: RoleTable, rules: StatementRules
) -> Iterator[Claim]:
    """The claims of the statement at event ``index`` (none for another event)."""
    event = game.events[index]
    field = rules.text.get(str(event.get("kind")))
    speaker = event.get("seat")
    if field is None or not isinstance(speaker, int):
        return
    found = [
        Claim(said.kind, speaker, said.target, said.roles, "fields")
        for said in rules.claims(game.events, index)
        if said.target in game.roles
    ]
    yield from found
    said = {(c.kind, c.target, c.roles) for c in found}
    text = str(event.get(field) or "")
    for item in parse_speech(text, speaker, table, seats=game.roles.keys()):
        claim = from_evidence(item, table)
        if claim is not None and (claim.kind, claim.target, claim.roles) not in said:
            said.add((claim.kind, claim.target, claim.roles))
            yield claim


def from_evidence(item: Evidence, table: RoleTable, source: str = "words") -> Claim | None:
    """A parsed piece of evidence as a claim (ballots and kills are not claims)."""
    if isinstance(item, RoleClaim):
        return Claim("role", item.speaker, item.speaker, item.roles, source)
    if isinstance(item, CheckReport):
        return Claim("check", item.speaker, item.target, item.roles, source)
    if isinstance(item, SeatIs):
        return Claim(
            seat_claim_kind(item.roles, table), item.speaker, item.target, item.roles, source
        )
    if isinstance(item, VotePromise):
        return Claim("promise", item.speaker, item.target, frozenset(), source)
    return None


def seat_claim_kind(roles: Roles, table: RoleTable) -> str:
    """ "vouch" when the roles said are all honest (none hidden), else "accuse"
    (a Four Factions table has no hidden roles: naming a faction accuses, FF-14)."""
    return "vouch" if table.hidden and not roles & table.hidden else "accuse"


def label_of(roles: Roles, table: RoleTable) -> str:
    """A short name for a set of roles: a role, a group, "not <role>", else the
    roles joined by "|"."""
    if len(roles) == 1:
        return next(iter(roles))
    for name, members in sorted(table.groups.items()):
        if members == roles:
            return name
    rest = table.every - roles
    if len(rest) == 1:
        return f"not {next(iter(rest))}"
    return "|".join(sorted(roles))
