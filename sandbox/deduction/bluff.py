"""A hidden side's bluff (issue 37, the top level): when its lead fakes the
table's checker claim, and whom the fake check names.

A fake claim is the person's exploit (bench/bench_reference.py ``--exploit``):
it frames a plain seat at a table that follows claims, and costs the liar dearly
at a deducing table, which weighs a claim against what it sees and exposes it.
So the lead bluffs only where the table has shown it follows words without
grounds: before any vote, any checker claim and any checker shown dead (when
nothing yet points anywhere), nearly every speech outside its team already
accuses someone (a deducing seat with no evidence says so and accuses no one).
Once it has claimed, it keeps the claim: a checker that falls silent is
believed no more.

Plain functions of the seat's view and a variant's public kinds; nothing here
names a variant.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction.mind import Mind, PublicKinds

HERD = 0.75  # the share of today's speeches that accuse, at least, for a table that herds
HEARD = 2  # speeches outside the team to hear first


def _speeches(view: SeatView, kinds: Collection[str]) -> list[HistoryItem]:
    return [i for i in view.history if i.kind in kinds and i.speaker is not None]


def claimed(view: SeatView, kinds: Collection[str], checker: str) -> list[HistoryItem]:
    """This seat's own speeches that claimed the checker."""
    return [i for i in _speeches(view, kinds) if i.speaker == view.seat and _claims(i, checker)]


def herds(mind: Mind, view: SeatView, kinds: PublicKinds, team: Collection[int]) -> bool:
    """Before any ballot, checker claim or checker shown dead, the speeches
    outside ``team`` accuse someone nearly every time (the table follows words)."""
    checker = mind.table.checker
    said = _speeches(view, kinds.speeches)
    if any(i.kind == kinds.ballots for i in view.history) or any(_claims(i, checker) for i in said):
        return False
    if frozenset({checker}) in mind.revealed.values():
        return False
    heard = [i for i in said if i.speaker not in team]
    accusing = sum(bool(i.facts.get("accuse")) for i in heard)
    return len(heard) >= HEARD and accusing >= HERD * len(heard)


def target(mind: Mind, view: SeatView, kinds: Collection[str], others: Sequence[int]) -> int | None:
    """The seat a fake check names: the one named before if it still lives
    (one story), else the likeliest checker among ``others`` (whose word
    would undo the bluff)."""
    checker = mind.table.checker
    for item in reversed(claimed(view, kinds, checker)):
        named = [int(s) for s in item.facts.get("accuse", ()) if int(s) in others]
        if named:
            return named[0]
    return mind.pick(others, lambda s: mind.chance(s, {checker}))


def _claims(item: HistoryItem, checker: str) -> bool:
    return bool(checker) and item.facts.get("claim") == checker
