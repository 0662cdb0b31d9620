"""What the Four Factions variant declares once: its name, seats, factions and
pairs, decisions with their answer fields, and the enums of its phases, stages,
decisions and endings.

Enum values are the strings transcripts, views and prompts have always used.
"""

from __future__ import annotations

from enum import StrEnum

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
