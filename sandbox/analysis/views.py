"""What one seat's view knew of the roles at a point of a recorded game.

Read from the events that seat could see (each line's recorded visibility,
``Transcript.seen_by``), never from the referee's truth: its role card, its
team or pack list, the referee's answers to its checks, the roles revealed
with the dead, as its variant reads them (``StatementRules.facts``). Each such
event is a *fact* "seat s has one of roles R"; with
the deck (the roles dealt, public in every variant: WW-4, KG-1, FF-2) the
facts leave a set of possible roles per seat (:func:`support`), the roles some
assignment consistent with the facts gives that seat
(:class:`sandbox.deduction.space.Space`).

A claim the support rules out is one the speaker's own view contradicted
(docs/study-reference.md, "Statements: who lied").
"""

from __future__ import annotations

from collections import Counter as Tally

from sandbox.core.statements import StatementRules
from sandbox.deduction.space import Counter, Space
from sandbox.deduction.tables import RoleTable
from sandbox.transcript import EventRow, Transcript

Roles = frozenset[str]
Known = dict[int, Roles]  # seat -> roles it may have, for the seats facts named


class Knowledge:
    """One seat's facts, gathered event by event in game order."""

    def __init__(
        self, game: Transcript[EventRow], seat: int, table: RoleTable, rules: StatementRules
    ) -> None:
        self.seat, self.table, self.rules = seat, table, rules
        self.seats = tuple(sorted(game.roles))
        self.deck: dict[str, int] = dict(Tally(game.roles.values()))
        self.known: Known = {}
        self._support: dict[int, Roles] | None = None

    def add(self, event: EventRow) -> None:
        """The facts the variant reads from an event this seat saw
        (``StatementRules.facts``)."""
        for target, roles in list(self.rules.facts(event, self.seat, self.known, self.seats)):
            if target in self.seats:
                self._narrow(target, roles)

    def own_card(self, role: str) -> None:
        """A seat always knows its own card (WW-2, KG-2, FF-5), even where the
        transcript holds no role-card line it could see (or only a team fact)."""
        card = frozenset((role,))
        if self.known.get(self.seat) != card:
            self._narrow(self.seat, card)

    def _narrow(self, seat: int, roles: Roles) -> None:
        before = self.known.get(seat, self.table.every)
        self.known[seat] = before & roles
        self._support = None

    def support(self) -> dict[int, Roles]:
        """seat -> the roles some deal consistent with the facts gives it."""
        if self._support is None:
            self._support = support(Space(self.seats, self.deck, dict(self.known)))
        return self._support


def support(space: Space) -> dict[int, Roles]:
    """Each seat's possible roles: those on some complete deal the space
    allows (forward over the seats, checked backward by the completion count).
    A contradictory space (no deal) gives every seat its allowed options."""
    counter = Counter(space)
    states: set[tuple[int, ...]] = {counter.full}
    found: dict[int, Roles] = {}
    for index, seat in enumerate(space.seats):
        ok: set[str] = set()
        after: set[tuple[int, ...]] = set()
        for left in states:
            for role in counter.options[index]:
                if not left[role]:
                    continue
                rest = (*left[:role], left[role] - 1, *left[role + 1 :])
                if counter.completions(index + 1, rest):
                    ok.add(counter.roles[role])
                    after.add(rest)
        found[seat] = frozenset(ok) if ok else space.options(seat)
        states = after or states
    return found
