"""The sixteen role slots of Four Factions (FF-8) and the matching of fixed [[seat]]
entries onto them: a perfect matching by augmenting paths honours any satisfiable set
of fixed seats. Used by the config check and by the deal."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sandbox.games.four_factions.info import FACTIONS, SEATS, WEAPONS


class SlotError(ValueError):
    """The fixed seats cannot all be placed."""


class FixedSeat(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def faction(self) -> str | None: ...
    @property
    def elite(self) -> bool | None: ...
    @property
    def weapon(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Slot:
    """One role: faction, elite flag, and (balanced mode) the regular's weapon."""

    faction: str
    elite: bool
    weapon: str | None


def role_slots(balanced: bool) -> list[Slot]:
    slots: list[Slot] = []
    for faction in FACTIONS:
        slots.append(Slot(faction, True, None))
        for weapon in WEAPONS:
            slots.append(Slot(faction, False, weapon if balanced else None))
    return slots


def fits(spec: FixedSeat | None, slot: Slot) -> bool:
    if spec is None:
        return True
    if spec.faction is not None and spec.faction != slot.faction:
        return False
    if spec.elite is not None and spec.elite != slot.elite:
        return False
    if spec.weapon is not None:
        if slot.elite:
            return False
        if slot.weapon is not None and slot.weapon != spec.weapon:
            return False
    return True


def match_seats(
    specs: Sequence[FixedSeat], *, balanced: bool, order: random.Random | None
) -> dict[int, Slot]:
    """Seat -> slot. ``order`` shuffles seats and slots (seeded); None keeps order
    (used by config validation to prove the fixed seats are satisfiable)."""
    by_seat = {s.seat: s for s in specs}
    seats = list(range(1, SEATS + 1))
    slots = role_slots(balanced)
    if order is not None:
        order.shuffle(seats)
        order.shuffle(slots)
    # Fixed seats first, so a plain shuffle never has to undo many placements.
    seats.sort(key=lambda n: n not in by_seat)
    owner: dict[int, int] = {}  # slot index -> seat
    for seat in seats:
        if not _augment(seat, by_seat, slots, owner, set()):
            raise SlotError(_unplaceable(by_seat.get(seat), seat))
    return {seat: slots[i] for i, seat in owner.items()}


def _augment(
    seat: int,
    by_seat: dict[int, FixedSeat],
    slots: list[Slot],
    owner: dict[int, int],
    seen: set[int],
) -> bool:
    for i, slot in enumerate(slots):
        if i in seen or not fits(by_seat.get(seat), slot):
            continue
        seen.add(i)
        if i not in owner or _augment(owner[i], by_seat, slots, owner, seen):
            owner[i] = seat
            return True
    return False


def _unplaceable(spec: FixedSeat | None, seat: int) -> str:
    wanted = (
        ""
        if spec is None
        else (f" (faction={spec.faction}, elite={spec.elite}, weapon={spec.weapon})")
    )
    return (
        f"seat {seat}{wanted} cannot be placed: the fixed seats ask for more of one role "
        "than exist (each faction: 1 elite + 3 regulars; balanced weapons: one rock, "
        "one scissors, one paper regular per faction)"
    )
