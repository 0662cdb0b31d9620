"""What Tiny game declares once about itself: its identity (name, seats, roles,
sides, decisions with their answer fields, the enums of its phases and
endings) and the optional facts the tools read (which events are speeches)."""

from __future__ import annotations

from enum import StrEnum

from sandbox.core.variant import VariantInfo

FOX = "fox"
HEN = "hen"
MIN_SEATS, MAX_SEATS = 3, 6  # TG-1


class Phase(StrEnum):
    SETUP = "setup"
    SPEECHES = "speeches"  # TG-3
    VOTE = "vote"  # TG-4
    OVER = "over"


class Decision(StrEnum):
    SPEECH = "speech"  # TG-3
    VOTE = "vote"  # TG-4


class Ending(StrEnum):
    FOX_CAUGHT = "fox_caught"  # TG-5
    FOX_SURVIVED = "fox_survived"  # TG-5
    ROUND_LIMIT = "round_limit"  # TG-5


INFO = VariantInfo(
    name="tinygame",
    title="Tiny game (a fox among hens)",
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    roles=(FOX, HEN),
    sides=(FOX, HEN),
    decisions={Decision.SPEECH: ("speech",), Decision.VOTE: ("target",)},
    endings=Ending,
    phases=Phase,
    # Optional: the probe after speeches and the persuasion figures read it.
    speech_kinds=frozenset({"tinygame.speech"}),
)
