"""What the two grammars share: one sentence made ready to read, and the
evidence built from what they match.

A sentence is read after normalising: every seat reference becomes ``@N`` and
every role word of the table ``%k%`` (``k`` indexes :attr:`Reading.labels`), so
each grammar matches a few plain patterns instead of every way to say a seat
or a role. A seat outside the game's seats is dropped when evidence is built.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field

from sandbox.deduction.evidence import (
    CheckReport,
    Evidence,
    RoleClaim,
    SeatIs,
    VotePromise,
)
from sandbox.deduction.tables import Roles, RoleTable

SEAT = r"@(\d+)"
# One seat, or a list of them ("@4 and @6", "@4, @6", "@4和@6").
# Whole numbers only: "@11" never reads as "@1" followed by a stray digit.
SEATS = r"(@\d+(?!\d)(?:\s*(?:and|&|or|和|、|跟|与)\s*@\d+(?!\d))*)"
ROLE = r"%(\d+)%"
# The same, as the named groups the builders below read.
SEATS_NAMED = SEATS.replace("(", "(?P<seats>", 1)
ROLE_NAMED = ROLE.replace("(", "(?P<role>", 1)
_SEAT_NUMBER = re.compile(SEAT)


@dataclass
class Reading:
    """One speech being read: who speaks, the table, the seats of the game and
    the evidence found so far."""

    speaker: int
    table: RoleTable
    seats: Collection[int] | None
    labels: list[Roles] = field(default_factory=list)
    found: list[Evidence] = field(default_factory=list)
    # The seats the sentence being read says the speaker checked (True: a check
    # without a seat, so every statement of the sentence reports it).
    checked: set[int] | bool = False

    def roles(self, token: str, negated: bool = False) -> Roles:
        """The roles of a ``%k%`` token's index, or their complement."""
        roles = self.labels[int(token)]
        return self.table.not_(roles) if negated else roles

    def targets(self, text: str) -> Iterator[int]:
        """The seats of a matched ``@N`` list that exist in the game."""
        for number in _SEAT_NUMBER.findall(text):
            seat = int(number)
            if self.seats is None or seat in self.seats:
                yield seat

    def add(self, item: Evidence) -> None:
        if item not in self.found:
            self.found.append(item)

    # ------------------------------------------------------------ builders

    def claim(self, roles: Roles) -> None:
        if roles:
            self.add(RoleClaim(self.speaker, roles))

    def seat_is(self, seats: str, roles: Roles, checked: Collection[int] | bool = False) -> None:
        """``seats`` said to be ``roles``; a report of the speaker's own check
        when ``checked`` is True or names the seat. A statement about the
        speaker's own seat is a claim."""
        if not roles or roles == self.table.every:
            return
        for seat in self.targets(seats):
            if seat == self.speaker:
                self.claim(roles)
            elif checked is True or (not isinstance(checked, bool) and seat in checked):
                self.add(CheckReport(self.speaker, seat, roles))
            else:
                self.add(SeatIs(self.speaker, seat, roles))

    def accuse(self, seats: str) -> None:
        """An accusation without a role: the table's hidden roles (none: nothing)."""
        self.seat_is(seats, self.table.hidden)

    def vouch(self, seats: str) -> None:
        """A vouch: none of the hidden roles (a table without any: nothing)."""
        if self.table.hidden:
            self.seat_is(seats, self.table.honest)

    def vote(self, seats: str) -> None:
        for seat in self.targets(seats):
            if seat != self.speaker:
                self.add(VotePromise(self.speaker, seat))


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], Reading, str], None]]


def negated_before(text: str, start: int, negators: re.Pattern[str], reach: int = 12) -> bool:
    """Whether ``negators`` match within the ``reach`` characters before ``start``
    ("I will not vote @6", "我不投@6")."""
    return negators.search(text[max(0, start - reach) : start]) is not None


def mark_checks(text: str, reading: Reading, named: re.Pattern[str], word: re.Pattern[str]) -> None:
    """Set ``reading.checked`` for a sentence: the seats ``named`` matches after a
    check verb, else True when ``word`` (a check without a seat: "…; i checked
    it") is there, so the sentence's statements report the check."""
    seats = {s for m in named.finditer(text) for s in reading.targets(m.group(1))}
    reading.checked = seats or bool(word.search(text))


def resolve_pronouns(text: str, pronoun: re.Pattern[str]) -> str:
    """Each ``pronoun`` match replaced by the seat the sentence named before it,
    when it named exactly one ("seat 4 lied: it is a spy"); else left alone."""

    def seat(match: re.Match[str]) -> str:
        named = set(_SEAT_NUMBER.findall(text[: match.start()]))
        return f"@{named.pop()}" if len(named) == 1 else match.group()

    return pronoun.sub(seat, text)


# ------------------------------------------------------------ builders
# What a rule does with its match: the groups ``seats``, ``role`` and ``neg``
# (a negation) as the rule's pattern names them.


def claimed(m: re.Match[str], r: Reading, _: str) -> None:
    r.claim(r.roles(m.group("role"), bool(m.groupdict().get("neg"))))


def stated(m: re.Match[str], r: Reading, _: str) -> None:
    r.seat_is(m.group("seats"), r.roles(m.group("role"), bool(m.groupdict().get("neg"))), r.checked)


def reported(m: re.Match[str], r: Reading, _: str) -> None:
    """A check report with its result."""
    r.seat_is(m.group("seats"), r.roles(m.group("role"), bool(m.groupdict().get("neg"))), True)


def found(m: re.Match[str], r: Reading, _: str) -> None:
    """A check report that found a hidden role."""
    r.seat_is(m.group("seats"), r.table.hidden, True)


def cleared(m: re.Match[str], r: Reading, _: str) -> None:
    """A check report that found none of the hidden roles."""
    if r.table.hidden:
        r.seat_is(m.group("seats"), r.table.honest, True)


def accused(m: re.Match[str], r: Reading, _: str) -> None:
    r.accuse(m.group("seats"))


def vouched(m: re.Match[str], r: Reading, _: str) -> None:
    r.vouch(m.group("seats"))


def voted(m: re.Match[str], r: Reading, _: str) -> None:
    r.vote(m.group("seats"))


def run(rules: list[Rule], text: str, reading: Reading) -> None:
    """Every rule over ``text``, each match handed to its builder."""
    for pattern, build in rules:
        for match in pattern.finditer(text):
            build(match, reading, text)


def tokens(text: str, reading: Reading, language: str) -> str:
    """``text`` with each role word of ``language`` replaced by ``%k%``."""
    vocabulary = reading.table.vocabulary(language)
    if not vocabulary:
        return text
    words = "|".join(re.escape(word) for word, _ in vocabulary)
    # English words stand alone; Chinese has no spaces to mark a word.
    pattern = rf"(?<![a-z])(?:{words})(?![a-z])" if language == "en" else f"(?:{words})"
    lookup = dict(vocabulary)

    def swap(match: re.Match[str]) -> str:
        roles = lookup[match.group()]
        if roles not in reading.labels:
            reading.labels.append(roles)
        return f"%{reading.labels.index(roles)}%"

    return re.sub(pattern, swap, text)
