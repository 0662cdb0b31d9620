"""A hidden side's bluff (issue 37, the top level): when its lead fakes the
table's checker claim, and whom the fake check names.

A fake claim is the person's exploit (bench/bench_reference.py ``--exploit``):
it frames a plain seat at a table that follows claims, and costs the liar dearly
at a deducing table, which weighs a claim against what it sees and exposes it.
So the lead bluffs only where the table has shown it follows words without
grounds: before any seat has claimed the checker, nearly every speech of the
day outside its team already accuses someone (a deducing seat with no evidence
says so and accuses no one). Once it has claimed, it keeps the claim: a checker
that falls silent is believed no more.

Plain functions of the seat's view and a variant's public kinds; nothing here
names a variant.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction.mind import Mind

HERD = 0.75  # the share of today's speeches that accuse, at least, for a table that herds
HEARD = 2  # speeches outside the team to hear first


def _speeches(view: SeatView, kinds: Collection[str]) -> list[HistoryItem]:
    return [i for i in view.history if i.kind in kinds and i.speaker is not None]


def claimed(view: SeatView, kinds: Collection[str], checker: str) -> list[HistoryItem]:
    """This seat's own speeches that claimed the checker."""
    return [i for i in _speeches(view, kinds) if i.speaker == view.seat and _claims(i, checker)]


def herds(view: SeatView, kinds: Collection[str], checker: str, team: Collection[int]) -> bool:
    """No seat has claimed the checker yet, and the day's speeches outside
    ``team`` accuse someone nearly every time (the table follows words)."""
    said = _speeches(view, kinds)
    if any(_claims(i, checker) for i in said):
        return False
    day = int(view.public.get("day", 0))
    today = [i for i in said if i.day == day and i.speaker not in team]
    accusing = sum(bool(i.facts.get("accuse")) for i in today)
    return len(today) >= HEARD and accusing >= HERD * len(today)


def target(
    mind: Mind, view: SeatView, kinds: Collection[str], others: Sequence[int], prize: str
) -> int | None:
    """The seat a fake check names: the one named before if it still lives
    (one story), else the likeliest holder of ``prize`` (the checker itself,
    whose word would undo the bluff) among ``others``."""
    for item in reversed(claimed(view, kinds, mind.table.checker)):
        named = [int(s) for s in item.facts.get("accuse", ()) if int(s) in others]
        if named:
            return named[0]
    return mind.pick(others, lambda s: mind.chance(s, {prize}))


def _claims(item: HistoryItem, checker: str) -> bool:
    return bool(checker) and item.facts.get("claim") == checker
