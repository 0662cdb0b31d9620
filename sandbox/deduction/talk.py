"""What a deducing bot says from its belief: a suspect with a reason grounded
in what happened, a seat it trusts, or that it has nothing yet (issue 37,
item 3).

The reasons, strongest first, for the seat it suspects most:

0. the seat claimed a role dealt once that another seat was shown to have
   ("seat 3 claims the seer, but seat 7 was the seer");
1. the seat said something of another seat whose role is now known, and it
   was false ("seat 4 said seat 6 was a werewolf, but seat 6 was the doctor");
2. the seat accused this one, which knows its own card is honest;
3. a checker claimant this seat believes reported the seat hidden;
4. the seat claimed the checking role against a likelier claimant;
5. the seat voted for a seat later shown honest;
6. else the count itself, with its figure.

It accuses only with a reason (0–5) or when its belief stands clearly above
the prior (:data:`CLEAR`), so it does not join a crowd on a seat nothing
points at. The phrases are data (``talk.toml``); the role words come from the
variant's role table.
"""

from __future__ import annotations

import random
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files

from sandbox.core.variant import SeatView
from sandbox.deduction.evidence import Ballot, CheckReport, RoleClaim, SeatIs
from sandbox.deduction.mind import Mind, Reader
from sandbox.deduction.tables import Roles

CLEAR = 1.3  # a suspect without a reason must be this many times the prior
TRUSTED = 0.6  # a checker claimant believed at this chance or more
CLEARED = 0.05  # a seat this unlikely hidden, cleared by a trusted check, is vouched for
TALK_SALT = 0x5EED


@cache
def phrases() -> Mapping[str, Mapping[str, Sequence[str]]]:
    text = (files("sandbox.deduction") / "talk.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@dataclass
class Said:
    """A speech's structured claims and its sentences."""

    accuse: list[int] = field(default_factory=list)
    vouch: list[int] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)


class Talker:
    """Says a mind's view in one language, its words drawn from its own generator."""

    def __init__(self, mind: Mind, language: str, seed: int) -> None:
        self.mind = mind
        self.language = language
        self.seed = seed
        self.rng = random.Random(seed ^ TALK_SALT)
        self._covered: Talker | None = None

    def covered(self, view: SeatView, read: Reader) -> Talker:
        """A talker for the seat's cover (:meth:`Mind.cover`): what a hidden seat
        says, blaming whom the public record blames."""
        if self._covered is None:
            cover = self.mind.cover(view, read)
            self._covered = Talker(cover, self.language, self.seed + 1)
        else:
            self.mind.cover(view, read)
        return self._covered

    def say(self, key: str, **slots: object) -> str:
        ways = phrases()[key].get(self.language) or phrases()[key]["en"]
        return self.rng.choice(list(ways)).format(**slots)

    def noun(self, roles: Roles) -> str:
        return self.mind.table.noun(roles, self.language)

    def speak(self, me: int, others: Sequence[int], honest: bool) -> Said:
        """The suspect among ``others`` with its reason, and a vouch; ``honest``:
        this seat knows it is not hidden (an accusation of it is a lie)."""
        mind, out = self.mind, Said()
        if not others:
            return out
        suspect = mind.pick(others, mind.hidden)
        assert suspect is not None
        reason = self._reason(suspect, me, honest)
        p = mind.hidden(suspect)
        if reason is None and p >= CLEAR * mind.prior_hidden(others):
            reason = self.say(
                "count", a=suspect, hidden=self.noun(mind.table.hidden), p=round(100 * p)
            )
        if reason is None:
            out.sentences.append(self.say("unsure"))
        else:
            out.accuse.append(suspect)
            out.sentences += [reason, self.say("vote_for", a=suspect)]
        cleared = self._cleared(others, suspect)
        if cleared is not None:
            out.vouch.append(cleared[0])
            out.sentences.append(self.say("vouch_cleared", a=cleared[0], b=cleared[1]))
        return out

    def _reason(self, seat: int, me: int, honest: bool) -> str | None:
        mind, table = self.mind, self.mind.table
        hidden = self.noun(table.hidden)
        taken = self._claim_taken(seat)
        if taken is not None:
            role, owner = taken
            return self.say("claim_taken", a=seat, b=owner, role=self.noun(frozenset({role})))
        wrong = mind.proved_wrong(seat)
        if wrong is not None:
            target, said, role = wrong
            return self.say(
                "lied", a=seat, b=target, said=self.noun(said), role=self.noun(frozenset({role}))
            )
        if honest and any(
            isinstance(n.item, SeatIs | CheckReport)
            and n.item.target == me
            and n.item.roles <= table.hidden
            for n in mind.said_by(seat)
        ):
            return self.say("accused_me", a=seat, hidden=hidden)
        claimants = mind.checker_claims() if table.checker else []
        checker = frozenset({table.checker})
        for note in mind.said_of(seat):
            item = note.item
            if (
                isinstance(item, CheckReport)
                and item.roles <= table.hidden
                and item.speaker != seat
                and mind.chance(item.speaker, checker) >= TRUSTED
            ):
                return self.say("trusted_check", a=seat, b=item.speaker, hidden=hidden)
        if seat in claimants:
            rivals = [
                c
                for c in claimants
                if c != seat and mind.chance(c, checker) > mind.chance(seat, checker)
            ]
            if rivals:
                return self.say("rival_claims", a=seat, b=rivals[0], checker=self.noun(checker))
        for note in mind.notes:
            item = note.item
            if isinstance(item, Ballot) and item.voter == seat:
                known = mind.revealed.get(item.target)
                if known is not None and len(known) == 1 and not known & table.hidden:
                    return self.say("bad_vote", a=seat, b=item.target, role=self.noun(known))
        return None

    def _claim_taken(self, seat: int) -> tuple[str, int] | None:
        """(a role, its revealed holder) when ``seat`` claimed a role the deck
        deals once and every seat has seen it revealed on another seat."""
        mind = self.mind
        assert mind.belief is not None
        deck = mind.belief.space.deck
        for note in mind.said_by(seat):
            item = note.item
            if isinstance(item, RoleClaim) and len(item.roles) == 1:
                (role,) = item.roles
                owners = [s for s, r in mind.revealed.items() if r == item.roles and s != seat]
                if deck.get(role) == 1 and owners:
                    return role, owners[0]
        return None

    def _cleared(self, others: Sequence[int], suspect: int) -> tuple[int, int] | None:
        """(a seat, its trusted checker) when a believed check cleared a living seat."""
        mind, table = self.mind, self.mind.table
        checker = frozenset({table.checker})
        for note in reversed(mind.notes):
            item = note.item
            if (
                isinstance(item, CheckReport)
                and item.target in others
                and item.target != suspect
                and not item.roles & table.hidden
                and mind.hidden(item.target) <= CLEARED
                and mind.chance(item.speaker, checker) >= TRUSTED
            ):
                return item.target, item.speaker
        return None
