"""Four Factions' reference ladder (issue 37 item 4): what each level reads and
how it fights.

Each level is a :class:`~sandbox.deduction.mind.Level` (what its belief reads,
how sharply it picks; handed to its :class:`~sandbox.deduction.mind.Mind`) and a
:class:`Tactics` (what the bot lays over the belief: the day-3 protections read
as faction groups, the duel odds, the cover claim, the weapons told to mates, how
much an attack must be worth). The bench's ``--set LEVEL FIELD VALUE`` changes
either for a trial run.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.deduction.mind import Level


@dataclass(frozen=True)
class Tactics:
    """What a level's bot does over its belief (games/four_factions/evidence.py)."""

    groups: bool  # its attacks read the day-3 protections as faction groups (FF-15)
    duels: bool  # the duel odds pick the elite's arms and every target (FF-21, FF-22)
    cover: bool  # claims its rival's faction, accuses and backs its own (FF-13..FF-15)
    tells: bool  # tells its mates the weapons its duels showed (FF-12, FF-17)
    # An attack worth no more than this (evidence.attack_values) stays home.
    attack_at: float = 0.0
    # A rival's death is worth this much more when it likely wipes the rival out
    # (the pair won, FF-26); 0: every rival the same.
    finish: float = 0.0
    # Backs the likeliest rival seat on day 3, not its elite, so no group of
    # protectors shows its elite and its regulars (FF-15; as its cover claims).
    hides: bool = False
    # Its elite names the rival's regulars on its first open day (FF-9, FF-17)
    # and its regulars take their elite's word for it (FF-10).
    names: bool = False
    # Reads a table whose seats back seats of its own faction as one that hides
    # its elites: a protector backs its rival, no group is formed (evidence.read_table).
    sees_hiding: bool = False


# v4 (issue 37 item 4): one engine with graded mistakes over every level's
# reading (the protections and the duel odds); a slip is a pick drawn uniformly
# (an accusation, a loadout, an attack on any seat not known a mate, worth it or not).
VERSION = 4
LADDER: dict[int, Level] = {
    1: Level(1, words=False, forget=0.2, noise=0.0, blunder=0.2, version=VERSION),
    2: Level(2, words=True, forget=0.1, noise=0.0, blunder=0.1, version=VERSION),
    3: Level(3, words=True, forget=0.0, noise=0.0, blunder=0.05, version=VERSION),
    4: Level(4, words=True, forget=0.0, noise=0.0, coordinates=True, version=VERSION),
}
TACTICS: dict[int, Tactics] = {
    1: Tactics(groups=True, duels=True, cover=False, tells=False),
    2: Tactics(groups=True, duels=True, cover=False, tells=False, hides=True),
    3: Tactics(groups=True, duels=True, cover=True, tells=False, hides=True, finish=3.0),
    4: Tactics(
        groups=True,
        duels=True,
        cover=True,
        tells=True,
        hides=True,
        finish=3.0,
        sees_hiding=True,
        names=True,
    ),
}
