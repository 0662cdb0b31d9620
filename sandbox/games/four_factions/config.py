"""The Four Factions config model: rulings marked "option" in the spec, the
all-seat HP, and the fixed seats of the game file's [[seat]] tables.

Every validation error names the field and the allowed values."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, Protocol

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationInfo,
    field_validator,
)

from sandbox.core.discussion import OpenDayRulings
from sandbox.games.four_factions.info import FACTIONS, SEATS, WEAPONS

HP_MIN, HP_MAX = 3, 32  # FF-7
DEFAULT_HP = 5  # see docs/rules-four-factions.md: three wounds short of death + 2 spare


def _check_hp(value: int) -> int:
    if not HP_MIN <= value <= HP_MAX:
        raise ValueError(f"hp must be an integer from {HP_MIN} to {HP_MAX} (FF-7); got {value}")
    return value


# FF-7 says an integer: strict, so a TOML float (5.0) or a boolean is refused, not coerced.
HP = Annotated[StrictInt, AfterValidator(_check_hp)]
FactionName = Literal["wolves", "spies", "justice", "army"]
WeaponName = Literal["rock", "scissors", "paper"]


class SeatSpec(BaseModel):
    """One [[seat]] table: fixes any of faction, elite, weapon, hp for one seat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int = Field(ge=1, le=SEATS, description="seat number, 1..16")
    faction: FactionName | None = None
    elite: bool | None = None
    weapon: WeaponName | None = Field(None, description="regulars only (FF-6)")
    hp: HP | None = None

    @field_validator("weapon")
    @classmethod
    def _no_weapon_for_elite(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("elite") is True:
            raise ValueError(
                "an elite owns all three weapons and picks one each night (FF-5); "
                "give 'weapon' only with elite = false or unset"
            )
        return value


class FourFactionsConfig(OpenDayRulings):
    """Rulings (spec defaults) and fixed seats. See docs/rules-four-factions.md.
    OD-4's budget keys come from ``OpenDayRulings``; they matter only when
    ``discussion`` is ``"open"`` (OD-1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    discussion: Literal["turns", "open"] = Field(
        "turns",
        description="OD-1: the days' talk turn by turn (FF-18), or an open discussion (OD-2..OD-6)",
    )

    elite_knowledge: Literal["all", "own_faction"] = Field(
        "all", description="FF-9: an elite knows the factions of all twelve regulars, or own only"
    )
    weapon_assignment: Literal["balanced", "random"] = Field(
        "balanced", description="FF-8: regulars' weapons one of each per faction, or random"
    )
    defender_learns_attacker: bool = Field(
        False, description="FF-12: the defender also learns the attacker's seat"
    )
    wounds_between_regulars: bool = Field(
        True, description="FF-23 ruling: light wounds also in regular-vs-regular duels"
    )
    reveal_faction_on_death: bool = Field(
        False, description="FF-28: dawn announcements name the dead seats' factions"
    )
    day_limit: StrictInt = Field(
        20, ge=1, le=200, description="FF-27: last day; then draw by limit"
    )
    graveyard_chat: bool = Field(
        False,
        description="FF-19 ruling: each night the dead may send one message that only the dead "
        "and the spectators read, never the living",
    )
    hp: HP = Field(DEFAULT_HP, description="FF-7: max HP of every seat without its own 'hp'")
    seat: list[SeatSpec] = Field(default_factory=list, description="[[seat]] tables")

    @field_validator("seat")
    @classmethod
    def _seats_are_playable(cls, seats: list[SeatSpec], info: ValidationInfo) -> list[SeatSpec]:
        _check_duplicates(seats)
        _check_faction_counts(seats)
        mode = info.data.get("weapon_assignment", "balanced")
        try:
            match_seats(seats, balanced=mode == "balanced", order=None)
        except SlotError as err:
            raise ValueError(str(err)) from None
        return seats

    def seat_hp(self, seat: int) -> int:
        for spec in self.seat:
            if spec.seat == seat and spec.hp is not None:
                return spec.hp
        return self.hp


def _check_duplicates(seats: list[SeatSpec]) -> None:
    counts = Counter(s.seat for s in seats)
    dup = sorted(n for n, c in counts.items() if c > 1)
    if dup:
        raise ValueError(f"seat {dup} listed more than once; give each seat at most one [[seat]]")


def _check_faction_counts(seats: list[SeatSpec]) -> None:
    for faction in FACTIONS:
        mine = [s for s in seats if s.faction == faction]
        if len(mine) > 4:
            raise ValueError(
                f"faction '{faction}' has {len(mine)} fixed seats "
                f"{sorted(s.seat for s in mine)}; a faction has exactly 4 (FF-2)"
            )
        elites = sorted(s.seat for s in mine if s.elite is True)
        if len(elites) > 1:
            raise ValueError(
                f"faction '{faction}' has {len(elites)} elites (seats {elites}); "
                "exactly one per faction (FF-3)"
            )
        regulars = [s for s in mine if s.elite is False or s.weapon is not None]
        if len(regulars) > 3:
            raise ValueError(
                f"faction '{faction}' has {len(regulars)} fixed regulars; at most 3 (FF-3)"
            )
    elites = [s.seat for s in seats if s.elite is True]
    if len(elites) > len(FACTIONS):
        raise ValueError(f"{len(elites)} seats fixed as elite {elites}; at most 4 (FF-3)")


# ------------------------------------------------------------ slots
# The sixteen role slots of Four Factions (FF-8) and the matching of fixed [[seat]]
# entries onto them: a perfect matching by augmenting paths honours any satisfiable set
# of fixed seats. Used by the config check and by the deal.


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
