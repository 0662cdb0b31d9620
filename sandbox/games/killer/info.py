"""What the Killer variant declares once: its name, seat range, roles, decisions
with their answer fields, and the enums of its phases, decisions and endings.

Enum values are the strings transcripts, views and prompts have always used.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from sandbox.core.variant import VariantInfo

Role = Literal["killer", "police", "civilian"]
KILLER: Role = "killer"
POLICE: Role = "police"
CIVILIAN: Role = "civilian"

MIN_PLAYERS = 11  # KG-1
MAX_PLAYERS = 16


class Phase(StrEnum):
    """The referee's phases (``KillerState.phase``); views show both night
    phases as ``NIGHT`` (a seat does not learn whose turn of the night it is)."""

    SETUP = "setup"
    NIGHT_CHAT = "night_chat"  # KG-3 ruling (killer_chat): the killers' messages
    NIGHT_KILLERS = "night_killers"  # KG-3
    NIGHT_POLICE = "night_police"  # KG-4
    NIGHT = "night"  # views only
    DAWN = "dawn"  # KG-6
    LAST_WORDS = "last_words"  # KG-6, KG-7
    SPEECHES = "speeches"  # KG-8, KG-10
    VOTE = "vote"  # KG-9, KG-10
    OVER = "over"


class Context(StrEnum):
    """Why a day phase opened (``PhaseStarted.context``): last words after a
    ``NIGHT`` kill or a ``VOTE``; speeches of the ``DAY``, of the tied
    (``TIE_TIED``) or of the others (``TIE_OTHERS``); a ``VOTE`` or a ``REVOTE``."""

    NIGHT = "night"
    VOTE = "vote"
    DAY = "day"
    TIE_TIED = "tie_tied"  # KG-10, first tie
    TIE_OTHERS = "tie_others"  # KG-10, second tie
    REVOTE = "revote"
    OPEN = "open"  # OD-1: the day's discussion is an open day (KG-8's speeches in turn are not)


class Decision(StrEnum):
    """``DecisionRequest.decision`` of each request the referee opens."""

    KILL = "kill_opinion"  # KG-3
    SUSPECT = "check_opinion"  # KG-4
    LAST_WORDS = "last_words"  # KG-6
    SPEECH = "speech"  # KG-8, KG-13
    VOTE = "vote"  # KG-9, KG-10
    MESSAGE = "message"  # OD-5: post a message now, or wait (an open day)
    TEAM_MESSAGE = "team_message"  # KG-3 ruling (killer_chat): a message to the killers
    GRAVEYARD = "graveyard_message"  # KG-14 ruling (graveyard_chat): a dead seat's message


class Claim(StrEnum):
    """The role a speaker claims in a speech's structured fields (KG-14: only words)."""

    NONE = "none"
    POLICE = "police"
    KILLER = "killer"
    CIVILIAN = "civilian"


class Ending(StrEnum):
    """Every way a Killer game ends (the outcome's reason)."""

    KILLERS_ELIMINATED = "killers_eliminated"  # KG-12
    POLICE_ELIMINATED = "police_eliminated"  # KG-12
    CIVILIANS_ELIMINATED = "civilians_eliminated"  # KG-12
    FORCED_DRAW = "forced_draw"  # KG-10
    DAY_LIMIT = "day_limit"  # KG-12 ruling
    SURRENDER = "surrender"  # KG-13


INFO = VariantInfo(
    name="killer",
    title="Killer (police, killers and civilians)",
    min_seats=MIN_PLAYERS,
    max_seats=MAX_PLAYERS,
    roles=(KILLER, POLICE, CIVILIAN),  # KG-1
    # Civilians share the police's result (KG-12). The belief probe asks for all
    # three, not just P(killer): a killer's hunt for the police (KG-2) and a
    # civilian's reading of a police claim are both findings.
    sides=(KILLER, POLICE, CIVILIAN),
    decisions={
        Decision.KILL: ("target",),  # KG-3
        Decision.SUSPECT: ("suspect",),  # KG-4
        # KG-6, KG-8; claim/accuse/vouch are optional structured claims (KG-14);
        # 'concede' only when KG-13 allows
        Decision.LAST_WORDS: ("speech", "claim", "accuse", "vouch"),
        Decision.SPEECH: ("speech", "claim", "accuse", "vouch", "concede"),
        Decision.VOTE: ("target",),  # KG-9, KG-10
        # OD-5: speak (true posts, false waits), then a speech's fields, all optional
        Decision.MESSAGE: ("speak", "speech", "claim", "accuse", "vouch", "concede"),
        Decision.TEAM_MESSAGE: ("message",),  # KG-3 ruling: the killers' night talk
        Decision.GRAVEYARD: ("message",),  # KG-14 ruling: the dead's talk
    },
    endings=Ending,
    phases=Phase,
    # Speeches and last words carry the public talk (KG-8, KG-14).
    speech_kinds=frozenset({"killer.speech", "killer.last_words"}),
    death_fields={"killer.dawn": "victim", "killer.voted_out": "seat"},  # KG-6, KG-9
    # Studies match two sides (KG-1): civilians win and lose with the police (KG-12).
    seated_with={CIVILIAN: POLICE},
    # What a seat's secret record says twice (dropped by the shared record): its
    # card and its team (the role card names the fellows, KG-2), and its answers
    # that a later event states: speeches and last words (the claims line,
    # KG-14), the team's opinions (KG-3, KG-4), the ballots (KG-9). A KG-13
    # concession ends the game; "no" is not echoed. Not an open day's message
    # decision: a wait is stated by no later event (it would vanish from the record).
    card_kinds=frozenset({"killer.role", "killer.team"}),
    restated_answers=frozenset(Decision) - {Decision.MESSAGE},
    # KG-13: only a police or killer seat may concede, once a side is down to one
    own_fields=frozenset({"concede"}),
)
