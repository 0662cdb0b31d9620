"""Werewolf events. Each is frozen, and its own fields decide who may see it, so a
transcript line rebuilds the same audience. An ``audience`` field names the seats
(the living werewolves at that moment) allowed to see a pack secret (WW-16: the
dead see nothing private)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from sandbox.core.events import AudienceEvent, Event, RefereeEvent, SeatEvent


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """WW-4: the public announcement: seat and role counts and every active ruling."""

    kind: ClassVar[str] = "werewolf.game_started"
    players: int
    werewolves: int
    seers: int
    doctors: int
    villagers: int
    rulings: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RoleCard(SeatEvent):
    """WW-2/WW-4: a seat's own role, seen by that seat alone."""

    kind: ClassVar[str] = "werewolf.role"
    seat: int
    role: str


@dataclass(frozen=True, slots=True)
class Pack(SeatEvent):
    """WW-4: every werewolf learns every werewolf's seat."""

    kind: ClassVar[str] = "werewolf.pack"
    seen_by: ClassVar[str] = "members"
    role: str  # always "werewolf": the event states what the members are
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NightFell(Event):
    """WW-5: night n begins (night 1 comes before day 1)."""

    kind: ClassVar[str] = "werewolf.night"
    night: int


@dataclass(frozen=True, slots=True)
class Protection(SeatEvent):
    """WW-8: the doctor's choice for the night (target None: no protection)."""

    kind: ClassVar[str] = "werewolf.protection"
    seen_by: ClassVar[str] = "doctor"
    night: int
    doctor: int
    target: int | None


@dataclass(frozen=True, slots=True)
class Inspection(SeatEvent):
    """WW-10: the seer's choice for the night; its result comes at the resolution."""

    kind: ClassVar[str] = "werewolf.inspection"
    seen_by: ClassVar[str] = "seer"
    night: int
    seer: int
    target: int | None


@dataclass(frozen=True, slots=True)
class PackTurn(AudienceEvent):
    """WW-6/WW-7: the living werewolves' turn opens. ``stage`` is "chat" or "kill";
    ``order`` who answers, in order (the drawn werewolf alone under one_wolf)."""

    kind: ClassVar[str] = "werewolf.pack_turn"
    night: int
    stage: str
    mode: str
    order: tuple[int, ...]
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WolfMessage(AudienceEvent):
    """WW-6: one werewolf's private message to the living pack (never softened)."""

    kind: ClassVar[str] = "werewolf.wolf_message"
    night: int
    seat: int
    text: str
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WolfVotes(AudienceEvent):
    """WW-7: kill votes shown to the pack: one vote as it is cast (sequential,
    one_wolf) or all at once (sealed). None is an abstention."""

    kind: ClassVar[str] = "werewolf.wolf_votes"
    night: int
    votes: Mapping[str, int | None]
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class KillChosen(AudienceEvent):
    """WW-7: the pack's target. ``how``: "votes", "tie_draw", "abstain_draw" or
    "nobody" (every werewolf abstained and ``wolf_all_abstain = "nobody"``)."""

    kind: ClassVar[str] = "werewolf.kill_chosen"
    night: int
    target: int | None
    how: str
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeerResult(SeatEvent):
    """WW-10: what the seer learns of the seat it checked (a role, or a team)."""

    kind: ClassVar[str] = "werewolf.seer_result"
    seen_by: ClassVar[str] = "seer"
    night: int
    seer: int
    seat: int
    result: str


@dataclass(frozen=True, slots=True)
class Saved(SeatEvent):
    """WW-9: the doctor alone learns that its protection stopped the kill."""

    kind: ClassVar[str] = "werewolf.saved"
    seen_by: ClassVar[str] = "doctor"
    night: int
    doctor: int
    seat: int


@dataclass(frozen=True, slots=True)
class Dawn(Event):
    """WW-11: day n breaks; the night's victim (None: nobody died, whether saved or
    not attacked) is dead. ``revealed``: its role or team, per ``reveal_on_death``."""

    kind: ClassVar[str] = "werewolf.dawn"
    day: int
    victim: int | None
    revealed: str | None


@dataclass(frozen=True, slots=True)
class LastWordsTurn(Event):
    """WW-11 option: a dead seat gets the floor once (``cause``: "night" or "exile")."""

    kind: ClassVar[str] = "werewolf.last_words_turn"
    day: int
    seat: int
    cause: str


@dataclass(frozen=True, slots=True)
class SpeakingOrder(Event):
    """WW-12 round robin: the day's order, announced before the first speech;
    every one of the ``rounds`` rounds uses it."""

    kind: ClassVar[str] = "werewolf.speaking_order"
    day: int
    order: tuple[int, ...]
    rounds: int


@dataclass(frozen=True, slots=True)
class BiddingTurn(Event):
    """WW-12 bidding: turn ``turn`` of ``turns``; ``bidders`` may bid for the floor."""

    kind: ClassVar[str] = "werewolf.bidding_turn"
    day: int
    turn: int
    turns: int
    bidders: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Bids(RefereeEvent):
    """WW-12: the sealed bids of a turn, for the referee only (each bidder knows
    its own from its decision)."""

    kind: ClassVar[str] = "werewolf.bids"
    day: int
    turn: int
    bids: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class FloorWon(Event):
    """WW-12: who speaks this turn (``drawn``: the top bid was tied)."""

    kind: ClassVar[str] = "werewolf.floor"
    day: int
    turn: int
    seat: int
    drawn: bool


@dataclass(frozen=True, slots=True)
class Speech(Event):
    """WW-12/WW-13: a public speech. ``text`` is what the seat wrote, ``shown`` what
    everyone sees (softened); claims as recorded, never confirmed. ``turn`` counts
    the day's speeches from 1."""

    kind: ClassVar[str] = "werewolf.speech"
    day: int
    seat: int
    turn: int
    text: str
    shown: str
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LastWords(Event):
    """WW-11: a dead seat's last words, with claims and softening as a speech."""

    kind: ClassVar[str] = "werewolf.last_words"
    day: int
    seat: int
    cause: str
    text: str
    shown: str
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class VoteOpened(Event):
    """WW-14: the day's vote: ``mode`` "sequential" (``order``: who votes when) or
    "sealed" (``order``: the voters); ``candidates``: the seats one may name."""

    kind: ClassVar[str] = "werewolf.vote_opened"
    day: int
    mode: str
    order: tuple[int, ...]
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Ballots(Event):
    """WW-14: ballots made public: one as it is cast (sequential) or all together
    (sealed). None abstains; ``drawn``: seats whose ballot was a WW-23 draw."""

    kind: ClassVar[str] = "werewolf.ballots"
    day: int
    ballots: Mapping[str, int | None]
    drawn: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Exiled(Event):
    """WW-15: the exiled seat dies at once. ``how``: "votes", "tie_draw" or
    "abstain_draw"; ``revealed`` per ``reveal_on_exile``."""

    kind: ClassVar[str] = "werewolf.exiled"
    day: int
    seat: int
    votes: int
    how: str
    revealed: str | None


@dataclass(frozen=True, slots=True)
class NoExile(Event):
    """WW-15: nobody is exiled (``reason``: "tie", "all_abstained", "no_majority")."""

    kind: ClassVar[str] = "werewolf.no_exile"
    day: int
    reason: str


@dataclass(frozen=True, slots=True)
class DayLimitReached(Event):
    """WW-21: the last day ended without a winner."""

    kind: ClassVar[str] = "werewolf.day_limit"
    day: int


@dataclass(frozen=True, slots=True)
class RolesRevealed(Event):
    """WW-20: the game is decided (``ending``); every seat's role is announced."""

    kind: ClassVar[str] = "werewolf.roles_revealed"
    ending: str
    roles: Mapping[str, str]
