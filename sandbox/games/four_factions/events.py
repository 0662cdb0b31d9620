"""Four Factions events. Each says who may see it (FF-9..FF-12, FF-28)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from sandbox.core.events import Event, RefereeEvent, SeatEvent


@dataclass(frozen=True, slots=True)
class RoleDealt(SeatEvent):
    """A seat's role card (FF-5/6/7): only that seat sees it."""

    kind: ClassVar[str] = "ff.role"
    seat: int
    faction: str
    elite: bool
    weapon: str | None  # regulars only (FF-6)
    shield: str | None
    max_hp: int


@dataclass(frozen=True, slots=True)
class EliteKnowledge(SeatEvent):
    """FF-9: the elite learns regulars' factions (seat -> faction), not weapons."""

    kind: ClassVar[str] = "ff.elite_knowledge"
    seat: int
    regulars: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class EliteKnown(SeatEvent):
    """FF-10: a regular learns which seat is its faction's elite."""

    kind: ClassVar[str] = "ff.elite_known"
    seat: int
    elite_seat: int


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """A new day, night or half-night. ``stage``: proofs, accusation, protection,
    open (days); quiet, loadout, first_half, second_half (nights)."""

    kind: ClassVar[str] = "ff.phase"
    day: int
    phase: str
    stage: str


@dataclass(frozen=True, slots=True)
class ProofsGiven(Event):
    """FF-13: the seat says it *is* ``am`` and denies the other three factions."""

    kind: ClassVar[str] = "ff.proofs"
    seat: int
    am: str
    speech: str


@dataclass(frozen=True, slots=True)
class AccusationMade(Event):
    """FF-14: ``seat`` says ``target`` is really of ``faction``."""

    kind: ClassVar[str] = "ff.accusation"
    seat: int
    target: int
    faction: str
    speech: str


@dataclass(frozen=True, slots=True)
class ProtectionMade(Event):
    """FF-15: ``seat`` says ``target``'s day-1 claim is true."""

    kind: ClassVar[str] = "ff.protection"
    seat: int
    target: int
    speech: str


@dataclass(frozen=True, slots=True)
class NoStatement(Event):
    """FF-29: the seat gave no valid required statement; nothing is invented."""

    kind: ClassVar[str] = "ff.no_statement"
    seat: int
    stage: str


@dataclass(frozen=True, slots=True)
class Spoke(Event):
    """FF-17: a speech on an open day."""

    kind: ClassVar[str] = "ff.speech"
    seat: int
    speech: str


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """FF-17: the seat passed on an open day."""

    kind: ClassVar[str] = "ff.pass"
    seat: int


@dataclass(frozen=True, slots=True)
class LoadoutChosen(SeatEvent):
    """FF-5: the elite's weapon and shield for this night (both halves)."""

    kind: ClassVar[str] = "ff.loadout"
    seat: int
    day: int
    weapon: str
    shield: str


@dataclass(frozen=True, slots=True)
class DuelResolved(RefereeEvent):
    """The referee's full record of a duel (FF-21/22); folds HP and deaths.
    ``strikes``: {striker, struck, weapon, effect, hp_after} in order."""

    kind: ClassVar[str] = "ff.duel"
    day: int
    half: int
    attacker: int
    defender: int
    strikes: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class AttackReport(SeatEvent):
    """FF-12: what the attacker learns. ``struck_back_with`` is None when the
    defender died first. ``outcomes``: {by: you|target, weapon, effect, died}."""

    kind: ClassVar[str] = "ff.attack_report"
    seat: int
    day: int
    half: int
    target: int
    weapon: str
    struck_back_with: str | None
    outcomes: tuple[Mapping[str, Any], ...]
    hp_after: int


@dataclass(frozen=True, slots=True)
class DefenceReport(SeatEvent):
    """FF-12: what the defender learns: the weapon it was struck with and every
    outcome; ``attacker`` only under the defender_learns_attacker option."""

    kind: ClassVar[str] = "ff.defence_report"
    seat: int
    day: int
    half: int
    attacker: int | None
    struck_with: str
    outcomes: tuple[Mapping[str, Any], ...]
    hp_after: int


@dataclass(frozen=True, slots=True)
class CorpseFound(SeatEvent):
    """FF-20: the attack found a dead target; nothing happens."""

    kind: ClassVar[str] = "ff.corpse"
    seat: int
    day: int
    half: int
    target: int


@dataclass(frozen=True, slots=True)
class PairSettled(RefereeEvent):
    """FF-26: the referee's record that a pair was decided after ``half`` of
    night ``day``. Referee-only: the public learns it from ``PairDecided`` after
    the dawn report, so second-half attackers never hear of first-half deaths."""

    kind: ClassVar[str] = "ff.pair_settled"
    pair: str
    results: Mapping[str, str]  # faction -> win | lose | draw
    day: int
    half: int


@dataclass(frozen=True, slots=True)
class PairDecided(Event):
    """FF-26: a rival pair's final result, announced publicly after the dawn
    report of night ``day``; it never says in which half it was decided."""

    kind: ClassVar[str] = "ff.pair_decided"
    pair: str
    results: Mapping[str, str]  # faction -> win | lose | draw
    day: int


@dataclass(frozen=True, slots=True)
class DawnReport(Event):
    """FF-28: who died in the night; factions only with reveal_faction_on_death."""

    kind: ClassVar[str] = "ff.dawn"
    day: int
    dead: tuple[int, ...]
    factions: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class DayLimitReached(Event):
    """FF-27: the day limit ends the game; undecided pairs draw by limit."""

    kind: ClassVar[str] = "ff.day_limit"
    day: int
