"""What the Four Factions variant declares once, then its config.

First its name, seats, factions and pairs, decisions with their answer fields,
and the enums of its phases, stages, decisions and endings (enum values are the
strings transcripts, views and prompts have always used); then the config
model: rulings marked "option" in the spec, the all-seat HP, and the fixed seats
of the game file's [[seat]] tables. Every validation error names the field and
the allowed values."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
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
from sandbox.core.variant import VariantInfo

SEATS = 16  # FF-1
FACTIONS: tuple[str, ...] = ("wolves", "spies", "justice", "army")  # FF-2
PAIRS: tuple[tuple[str, str], ...] = (("wolves", "justice"), ("spies", "army"))  # FF-25
WEAPONS: tuple[str, ...] = ("rock", "scissors", "paper")  # FF-4
SHIELDS: tuple[str, ...] = ("anti-rock", "anti-scissors", "anti-paper")  # FF-4
RANKS: tuple[str, ...] = ("elite", "regular")  # FF-3
FIRST_FIGHT_DAY = 4  # FF-16/FF-17


class Phase(StrEnum):
    SETUP = "setup"
    DAY = "day"
    NIGHT = "night"


class Stage(StrEnum):
    """What a day or a night is for (``PhaseStarted.stage``)."""

    SETUP = "setup"
    PROOFS = "proofs"  # day 1, FF-13
    ACCUSATION = "accusation"  # day 2, FF-14
    PROTECTION = "protection"  # day 3, FF-15
    OPEN = "open"  # day 4 on, FF-17
    QUIET = "quiet"  # nights 1-3, FF-16
    LOADOUT = "loadout"  # a fighting night's elite loadouts, FF-5
    FIRST_HALF = "first_half"  # FF-19: odd seats attack
    SECOND_HALF = "second_half"  # FF-19: even seats attack


class Decision(StrEnum):
    """``DecisionRequest.decision`` of each request the referee opens."""

    PROOFS = "proofs"  # FF-13
    ACCUSATION = "accusation"  # FF-14
    PROTECTION = "protection"  # FF-15
    SPEAK = "speak"  # FF-17
    LOADOUT = "loadout"  # FF-5
    ATTACK = "attack"  # FF-19
    MESSAGE = "message"  # OD-5: an open day's ask (speak now or wait)
    GRAVEYARD = "graveyard_message"  # FF-19 ruling (graveyard_chat): a dead seat's message


class Ending(StrEnum):
    PAIRS_DECIDED = "pairs_decided"  # FF-26
    DAY_LIMIT = "day_limit"  # FF-27


def pair_of(faction: str) -> tuple[str, str]:
    return next(p for p in PAIRS if faction in p)


def rival_of(faction: str) -> str:
    """The faction paired against ``faction`` (FF-25)."""
    a, b = pair_of(faction)
    return b if faction == a else a


def pair_name(pair: tuple[str, str]) -> str:
    return f"{pair[0]}/{pair[1]}"


def role_label(faction: str, elite: bool) -> str:
    """The "faction/rank" label of ``Variant.rules.roles`` (FF-2, FF-3)."""
    return f"{faction}/{RANKS[0] if elite else RANKS[1]}"


INFO = VariantInfo(
    name="four_factions",
    title="Four Factions",
    min_seats=SEATS,
    max_seats=SEATS,
    roles=tuple(f"{f}/{rank}" for f in FACTIONS for rank in RANKS),
    sides=FACTIONS,
    decisions={
        Decision.PROOFS: ("am", "speech"),  # FF-13
        Decision.ACCUSATION: ("target", "faction", "speech"),  # FF-14
        Decision.PROTECTION: ("target", "speech"),  # FF-15
        Decision.SPEAK: ("speech",),  # FF-17
        Decision.LOADOUT: ("weapon", "shield"),  # FF-5
        Decision.ATTACK: ("target",),  # FF-19
        # OD-3, OD-5: speak or wait; the day's statement fields ride along, optional
        Decision.MESSAGE: ("speak", "speech", "am", "target", "faction"),
        Decision.GRAVEYARD: ("message",),  # FF-19 ruling: the dead's talk
    },
    endings=Ending,
    phases=Phase,
    kind_prefix="ff",
    # Day-1 proofs, accusations, protections and open speeches (FF-13..FF-15, FF-17).
    speech_kinds=frozenset({"ff.speech", "ff.proofs", "ff.accusation", "ff.protection"}),
    death_fields={"ff.corpse": "target"},  # FF-20
    # What a seat's secret record says twice (dropped by the shared record): its
    # card and what the card lists (the elite's known regulars, a regular's
    # elite: FF-9, FF-10), and its answers that a later event states: the day
    # statements and speeches (FF-13..FF-15, FF-17, a missing one by FF-29) and
    # the elite's loadout (FF-5). An attack is not: a null target or a dead
    # attacker leaves no trace (FF-19, FF-20).
    card_kinds=frozenset({"ff.role", "ff.elite_knowledge", "ff.elite_known"}),
    restated_answers=frozenset(Decision) - {Decision.ATTACK, Decision.MESSAGE},
)


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
