"""Setting up a Four Factions game: dealing roles (FF-8), a seeded shuffle of
seats onto the sixteen role slots respecting every fixed [[seat]] entry (a
perfect matching by augmenting paths honours any satisfiable set of fixed
seats), then the role cards, the elites' knowledge (FF-9, FF-10) and day 1."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sandbox.core.events import Event
from sandbox.games.four_factions import events as ev
from sandbox.games.four_factions.info import FACTIONS, SEATS, WEAPONS, Phase, Stage
from sandbox.games.four_factions.strikes import shield_of

if TYPE_CHECKING:  # config.py imports this module to check fixed seats
    from sandbox.games.four_factions.config import FourFactionsConfig


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


def deal(
    specs: Sequence[FixedSeat], balanced: bool, rng: random.Random
) -> dict[int, tuple[str, bool, str | None]]:
    """Seat -> (faction, elite, weapon). Random mode draws unfixed weapons (FF-8)."""
    slots = match_seats(specs, balanced=balanced, order=rng)
    fixed_weapon = {s.seat: s.weapon for s in specs if s.weapon is not None}
    roles: dict[int, tuple[str, bool, str | None]] = {}
    for seat in sorted(slots):
        slot = slots[seat]
        weapon = slot.weapon
        if not slot.elite and weapon is None:
            weapon = fixed_weapon.get(seat) or rng.choice(WEAPONS)
        roles[seat] = (slot.faction, slot.elite, weapon)
    return roles


def setup_events(config: FourFactionsConfig, rng: random.Random) -> Iterator[Event]:
    roles = deal(config.seat, config.weapon_assignment == "balanced", rng)  # FF-8
    for seat, (faction, elite, weapon) in roles.items():
        shield = None if weapon is None else shield_of(weapon)  # FF-6
        yield ev.RoleDealt(seat, faction, elite, weapon, shield, config.seat_hp(seat))
    elites = {f: s for s, (f, e, _) in roles.items() if e}
    for seat, (faction, elite, _) in roles.items():
        if elite:
            yield ev.EliteKnowledge(seat, _known_regulars(config, roles, faction))  # FF-9
        else:
            yield ev.EliteKnown(seat, elites[faction])  # FF-10
    yield ev.PhaseStarted(1, Phase.DAY, Stage.PROOFS)


def _known_regulars(
    config: FourFactionsConfig,
    roles: Mapping[int, tuple[str, bool, str | None]],
    faction: str,
) -> dict[str, str]:
    own_only = config.elite_knowledge == "own_faction"
    return {
        str(s): f
        for s, (f, elite, _) in sorted(roles.items())
        if not elite and (not own_only or f == faction)
    }
