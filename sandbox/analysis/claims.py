"""Every statement of a recorded game broken into its claims.

A *statement* is a public speech, last words, a Four Factions day statement
or a Werewolf pack message. Its claims come from two sources:

* ``fields``: what the referee recorded in structure: a claimed role
  (``claim``, WW-12/KG-14; ``am`` of FF-13), accused and vouched seats
  (``accuse``/``vouch``; FF-14's faction accusation; FF-15's protection, a vouch
  for the target's day-1 faction claim);
* ``words``: the text read by :func:`sandbox.deduction.speech.parse_speech`
  with the variant's role table (role claims, statements about seats, check
  reports, vote promises). A words claim the fields already state is dropped,
  so one claim is one row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sandbox.deduction.evidence import CheckReport, Evidence, RoleClaim, SeatIs, VotePromise
from sandbox.deduction.speech import parse_speech
from sandbox.deduction.tables import RoleTable
from sandbox.transcript import EventRow, Transcript

Roles = frozenset[str]

# event kind -> the field holding the words
STATEMENT_TEXT = {
    "werewolf.speech": "text",
    "werewolf.last_words": "text",
    "werewolf.wolf_message": "text",
    "killer.speech": "text",
    "killer.last_words": "text",
    "ff.proofs": "speech",
    "ff.accusation": "speech",
    "ff.protection": "speech",
    "ff.speech": "speech",
}
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


def claims_of(game: Transcript[EventRow], index: int, table: RoleTable) -> Iterator[Claim]:
    """The claims of the statement at event ``index`` (none for another event)."""
    event = game.events[index]
    kind = str(event.get("kind"))
    speaker = event.get("seat")
    if kind not in STATEMENT_TEXT or not isinstance(speaker, int):
        return
    found = list(_from_fields(game, index, speaker, table))
    yield from found
    said = {(c.kind, c.target, c.roles) for c in found}
    text = str(event.get(STATEMENT_TEXT[kind]) or "")
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


def _from_fields(
    game: Transcript[EventRow], index: int, speaker: int, table: RoleTable
) -> Iterator[Claim]:
    event = game.events[index]
    kind = str(event.get("kind"))
    seats = game.roles.keys()
    claimed = _label(event.get("claim"), table)
    if claimed:  # WW-12, KG-14
        yield Claim("role", speaker, speaker, claimed, "fields")
    for target in event.get("accuse") or ():
        if int(target) in seats and table.hidden:
            yield Claim("accuse", speaker, int(target), table.hidden, "fields")
    for target in event.get("vouch") or ():
        if int(target) in seats and table.hidden:
            yield Claim("vouch", speaker, int(target), table.honest, "fields")
    if kind == "ff.proofs":  # FF-13: "I am <am>"
        am = _label(event.get("am"), table)
        if am:
            yield Claim("role", speaker, speaker, am, "fields")
    elif kind == "ff.accusation" and isinstance(event.get("target"), int):  # FF-14
        roles = _label(event.get("faction"), table)
        if roles:
            yield Claim("accuse", speaker, int(event["target"]), roles, "fields")
    elif kind == "ff.protection" and isinstance(event.get("target"), int):
        # FF-15: "the target's day-1 claim is true": its faction claim, if it made one
        target = int(event["target"])
        yield Claim("vouch", speaker, target, _day_one_claim(game, index, target, table), "fields")


def _label(value: object, table: RoleTable) -> Roles:
    """The roles a role or group label names; empty for "none" or an unknown label."""
    try:
        return table.resolve(str(value)) if value not in (None, "none", "") else frozenset()
    except ValueError:
        return frozenset()


def _day_one_claim(game: Transcript[EventRow], index: int, target: int, table: RoleTable) -> Roles:
    for event in reversed(game.events[:index]):
        if event.get("kind") == "ff.proofs" and event.get("seat") == target:
            return _label(event.get("am"), table)
    return frozenset()


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
