"""What the Werewolf variant declares once: its name, seat range, roles, sides,
decisions with their answer fields, and the enums of its phases and endings.

Enum values are the plain strings that transcripts, views and prompts use.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from sandbox.core.variant import VariantInfo

Role = Literal["werewolf", "seer", "doctor", "villager"]
WEREWOLF: Role = "werewolf"
SEER: Role = "seer"
DOCTOR: Role = "doctor"
VILLAGER: Role = "villager"
ROLES: tuple[Role, ...] = (WEREWOLF, SEER, DOCTOR, VILLAGER)

# WW-3: two teams; every role but the werewolf plays for the village.
WEREWOLVES = "werewolves"
VILLAGE = "village"
SIDES = (WEREWOLVES, VILLAGE)

MIN_PLAYERS = 6  # WW-1
SMALL_TABLE = 4  # WW-1 with the `small_table` ruling (Mini-Mafia's four seats)
MAX_PLAYERS = 16
BID_MAX = 4  # WW-12 bidding: bids are 0..4


def team_of(role: str) -> str:
    """WW-3: the werewolves' team, or the village's for every other role."""
    return WEREWOLVES if role == WEREWOLF else VILLAGE


class Phase(StrEnum):
    """The referee's phases (``WerewolfState.phase``). Views show every night
    phase as ``NIGHT``: a seat does not learn whose turn of the night it is."""

    SETUP = "setup"
    NIGHT_ACTIONS = "night_actions"  # WW-5: seer and doctor, sealed
    WOLF_CHAT = "wolf_chat"  # WW-6
    WOLF_KILL = "wolf_kill"  # WW-7
    NIGHT = "night"  # views only
    DAWN = "dawn"  # WW-11
    LAST_WORDS = "last_words"  # WW-11 option
    BIDDING = "bidding"  # WW-12 bidding
    DISCUSSION = "discussion"  # WW-12
    VOTE = "vote"  # WW-14
    OVER = "over"


class Decision(StrEnum):
    """``DecisionRequest.decision`` of each request the referee opens (WW-22)."""

    PROTECT = "protect"  # WW-8
    INSPECT = "inspect"  # WW-10
    WOLF_MESSAGE = "wolf_message"  # WW-6
    KILL = "kill"  # WW-7
    BID = "bid"  # WW-12 bidding
    SPEECH = "speech"  # WW-12
    MESSAGE = "message"  # WW-12 open (OD-5): post a message now, or wait
    LAST_WORDS = "last_words"  # WW-11
    VOTE = "vote"  # WW-14
    GRAVEYARD = "graveyard_message"  # WW-16 ruling (graveyard_chat): a dead seat's message


class Claim(StrEnum):
    """The role a speaker claims in a speech's structured fields (WW-12: words only)."""

    NONE = "none"
    WEREWOLF = "werewolf"
    SEER = "seer"
    DOCTOR = "doctor"
    VILLAGER = "villager"


class Ending(StrEnum):
    """Every way a Werewolf game ends (the outcome's reason)."""

    VILLAGE_WINS = "werewolves_eliminated"  # WW-18
    WEREWOLVES_WIN = "werewolf_parity"  # WW-19
    DAY_LIMIT = "day_limit"  # WW-21


SPEECH_FIELDS = ("speech", "claim", "accuse", "vouch")

INFO = VariantInfo(
    name="werewolf",
    title="Werewolf (werewolves, seer, doctor and villagers)",
    min_seats=SMALL_TABLE,  # the config refuses fewer than MIN_PLAYERS unless small_table
    max_seats=MAX_PLAYERS,
    roles=ROLES,  # WW-1
    sides=SIDES,  # WW-3
    decisions={
        Decision.PROTECT: ("target",),  # WW-8
        Decision.INSPECT: ("target",),  # WW-10
        Decision.WOLF_MESSAGE: ("message",),  # WW-6
        Decision.KILL: ("target",),  # WW-7
        Decision.BID: ("bid",),  # WW-12
        # WW-12: claim/accuse/vouch are optional structured claims
        Decision.SPEECH: SPEECH_FIELDS,
        Decision.MESSAGE: ("speak", *SPEECH_FIELDS),  # OD-5: speak, then a speech's fields
        Decision.LAST_WORDS: SPEECH_FIELDS,  # WW-11
        Decision.VOTE: ("target",),  # WW-14
        Decision.GRAVEYARD: ("message",),  # WW-16 ruling: the dead's talk
    },
    endings=Ending,
    phases=Phase,
    # Speeches and last words carry the public talk (WW-11, WW-12); the pack's
    # messages are private (WW-6), so no belief probe follows them.
    speech_kinds=frozenset({"werewolf.speech", "werewolf.last_words"}),
    death_fields={"werewolf.dawn": "victim", "werewolf.exiled": "seat"},  # WW-11, WW-15
    # No seated_with: side_of already puts the seer, doctor and villagers on the
    # village's side (WW-3), so a study matches the two teams.
    # What a seat's secret record says twice (dropped by the shared record): its
    # card and its pack (the card names the pack, WW-4), and its answers that a
    # later event states: the doctor's protection and the seer's check (WW-8,
    # WW-10), the pack's messages and kill votes (WW-6, WW-7), speeches and
    # last words (the claims line, WW-11, WW-12), the ballots (WW-14). A bid is
    # not: the bids are the referee's alone (WW-12); nor an open day's message
    # (a wait is stated by no later event, so it would vanish from the record).
    card_kinds=frozenset({"werewolf.role", "werewolf.pack"}),
    restated_answers=frozenset(Decision) - {Decision.BID, Decision.MESSAGE},
)
