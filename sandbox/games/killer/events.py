"""Killer events and the referee's state folded from them. Each event is
frozen; its fields alone decide who may see it, so a transcript line rebuilds
the same audience. ``audience`` fields name the group (the living killers or
police at that moment) allowed to see group secrets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sandbox.core.discussion import OpenDay, OpenDayRulings
from sandbox.core.events import (
    AudienceEvent,
    Event,
    GraveyardMessage,
    PlayerText,
    SeatEvent,
    TeamMessage,
)
from sandbox.core.talk import dead_at_nightfall
from sandbox.games.killer.config import EITHER_SIDE, OPEN_BUDGET, TURNS, without_turns_keys
from sandbox.games.killer.info import KILLER, Context, Phase


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """Public line-up and the active rulings (everyone knows the rules, KG-1)."""

    kind: ClassVar[str] = "killer.game_started"
    players: int
    killers: int
    police: int
    last_words_quota: int
    day_limit: int
    check_answer: str
    reveal_role_on_death: bool
    barred_first_victim: int | None
    concede: str = "either_side_down_to_one"  # KG-13 scope (the default: older lines load)
    # OD-1, OD-4: the day's discussion and an open day's budget; the defaults (KG-8's
    # turns) let transcripts written before open days load.
    discussion: str = TURNS
    messages_per_seat: int = 3
    messages_per_day: int | None = None
    quiet_rounds: int = 1
    killer_chat: bool = False  # KG-3 ruling and KG-14 ruling (table talk): off by
    graveyard_chat: bool = False  # default, so older lines load; omitted while off

    def to_json(self) -> dict[str, Any]:
        return without_turns_keys(Event.to_json(self))  # OD-1: turns games write as before


@dataclass(frozen=True, slots=True)
class RoleCard(SeatEvent):
    """KG-2: a seat's own card, seen by that seat alone."""

    kind: ClassVar[str] = "killer.role"
    seat: int
    role: str


@dataclass(frozen=True, slots=True)
class TeamList(SeatEvent):
    """KG-2: the killers (or the police) learn who their fellows are."""

    kind: ClassVar[str] = "killer.team"
    seen_by: ClassVar[str] = "members"
    role: str
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class NightFell(Event):
    """KG-11: a new night (night n is followed by day n)."""

    kind: ClassVar[str] = "killer.night"
    night: int


@dataclass(frozen=True, slots=True)
class Opinions(AudienceEvent):
    """KG-3/KG-4: the sealed opinions of one group, shown to that group afterwards."""

    kind: ClassVar[str] = "killer.opinions"
    night: int
    role: str  # "killer" or "police"
    opinions: Mapping[str, int | None]
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class KillChosen(AudienceEvent):
    """KG-3: the killers' victim for the night (None: no opinion given, no kill)."""

    kind: ClassVar[str] = "killer.kill_chosen"
    night: int
    target: int | None
    tie_break: bool
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PoliceTurn(Event):
    """Public: the killers closed their eyes, the police open theirs (no seats named)."""

    kind: ClassVar[str] = "killer.police_turn"
    night: int


@dataclass(frozen=True, slots=True)
class CheckResult(AudienceEvent):
    """KG-4: the judge's private answer to the police (suspect None: no check)."""

    kind: ClassVar[str] = "killer.check"
    night: int
    suspect: int | None
    answer: str | None  # a role, or "killer"/"not killer" (KG-4 option)
    tie_break: bool
    audience: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Dawn(Event):
    """KG-6: day breaks; the night's victim (if any) is announced and is dead."""

    kind: ClassVar[str] = "killer.dawn"
    day: int
    victim: int | None
    role: str | None  # only with reveal_role_on_death


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """The judge opens a day phase: last words, speeches or a vote. ``context``:
    last words "night"/"vote"; speeches "day"/"tie_tied"/"tie_others"; votes
    "vote"/"revote". ``order`` is the speaking order, ``candidates`` the players
    one may vote for, ``round`` the KG-10 tie round (0 = first vote)."""

    kind: ClassVar[str] = "killer.phase"
    day: int
    phase: str
    context: str
    round: int
    order: tuple[int, ...]
    candidates: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Speech(PlayerText):
    """KG-8/KG-10: a public speech ("pass" is an empty text), with its structured
    claims: the role the speaker claims and the seats it accuses and vouches for
    (sorted). Recorded as said, never confirmed (KG-14); the defaults ("none", no
    seats) also load transcripts written before the fields existed."""

    kind: ClassVar[str] = "killer.speech"
    context: str
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LastWords(PlayerText):
    """KG-6/KG-7: a dead player's last words, with structured claims as in ``Speech``."""

    kind: ClassVar[str] = "killer.last_words"
    claim: str = "none"
    accuse: tuple[int, ...] = ()
    vouch: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Ballots(Event):
    """KG-9: every ballot of a vote, announced after the vote (None = abstain)."""

    kind: ClassVar[str] = "killer.ballots"
    day: int
    round: int
    ballots: Mapping[str, int | None]
    tally: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class VotedOut(Event):
    """KG-9: the player with the most votes leaves the game."""

    kind: ClassVar[str] = "killer.voted_out"
    day: int
    seat: int
    role: str | None  # only with reveal_role_on_death


@dataclass(frozen=True, slots=True)
class NobodyOut(Event):
    """KG-9 ruling: nobody voted, so nobody is voted out."""

    kind: ClassVar[str] = "killer.nobody_out"
    day: int
    round: int


@dataclass(frozen=True, slots=True)
class Tied(Event):
    """KG-10: the vote tied; ``round`` is the tie round that starts (1 or 2)."""

    kind: ClassVar[str] = "killer.tied"
    day: int
    round: int
    tied: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ForcedDraw(Event):
    """KG-10: still tied after two revotes; the game ends as a forced draw."""

    kind: ClassVar[str] = "killer.forced_draw"
    day: int
    tied: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Conceded(Event):
    """KG-13: a police player or killer concedes for their side, which loses."""

    kind: ClassVar[str] = "killer.conceded"
    day: int
    seat: int
    side: str


@dataclass(frozen=True, slots=True)
class DayLimitReached(Event):
    """KG-12 ruling: the day limit passed without an end; draw by limit."""

    kind: ClassVar[str] = "killer.day_limit"
    day: int


# ---------------------------------------------------------------- the state
# The referee's state of a Killer game: the fold of every event.


@dataclass
class KillerState:
    players: int = 0
    quota: int = 0
    day_limit: int = 0
    check_answer: str = "identity"
    reveal: bool = False
    concede: str = EITHER_SIDE  # KG-13 scope
    discussion: str = TURNS  # OD-1
    open_rulings: OpenDayRulings = field(default_factory=OpenDayRulings)  # OD-4
    open: OpenDay = field(default_factory=OpenDay)  # the open day under way (OD-5, OD-6)
    killer_chat: bool = False  # KG-3 ruling
    graveyard_chat: bool = False  # KG-14 ruling
    graveyard: tuple[int, ...] = ()  # the dead still to answer this night's ask
    barred: int | None = None
    roles: dict[int, str] = field(default_factory=dict)
    alive: set[int] = field(default_factory=set)
    day: int = 0  # night n and day n share the number n
    phase: str = Phase.SETUP
    context: str = ""  # a Context once a day phase opened
    vote_round: int = 0
    order: list[int] = field(default_factory=list)  # speakers still to speak
    candidates: tuple[int, ...] = ()
    day_order: tuple[int, ...] = ()  # this day's full speaking order (KG-8)
    day_starter: int | None = None  # seat that opened this day's speeches
    prev_starter: int | None = None  # seat that opened the previous day's speeches
    night_victim: int | None = None  # chosen by the killers, dies at dawn
    first_night_victim: int | None = None  # KG-5 (series)
    tied: tuple[int, ...] = ()
    last_words_used: int = 0
    conceded_side: str | None = None
    forced_draw: bool = False
    day_limit_hit: bool = False
    # Derived from ``alive`` and ``roles``, kept by the fold (only it changes them):
    # the end check (KG-12) and every request ask for them after each event.
    living_seats: tuple[int, ...] = field(default=(), compare=False)  # sorted
    living_per_role: dict[str, int] = field(default_factory=dict, compare=False)
    # seat -> the living seats but that one (KG-14 claim targets); emptied on a death
    others_cache: dict[int, tuple[int, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def living(self, role: str | None = None) -> list[int]:
        if role is None:
            return list(self.living_seats)
        roles = self.roles
        return [s for s in self.living_seats if roles[s] == role]

    def side_count(self, role: str) -> int:
        return self.living_per_role.get(role, 0)

    def others(self, seat: int) -> tuple[int, ...]:
        """The living seats but ``seat``, in seat order: the same tuple until a seat
        joins or dies (``core.requests`` caches a tuple's membership set)."""
        found = self.others_cache.get(seat)
        if found is None:
            found = self.others_cache[seat] = tuple(s for s in self.living_seats if s != seat)
        return found

    def add_living(self, seat: int) -> None:
        if seat not in self.alive:
            self.alive.add(seat)
            self._count(seat, +1)

    def remove_living(self, seat: int) -> None:
        if seat in self.alive:
            self.alive.discard(seat)
            self._count(seat, -1)

    def _count(self, seat: int, change: int) -> None:
        role = self.roles[seat]
        self.living_per_role[role] = self.living_per_role.get(role, 0) + change
        self.living_seats = tuple(sorted(self.alive))
        self.others_cache = {}


def fold(state: KillerState, event: Event) -> None:
    """Apply one event to the referee's state (unknown kinds are ignored)."""
    state.open.apply(event)  # it folds the discussion.* kinds alone
    handler = _FOLDERS.get(type(event))
    if handler is not None:
        handler(state, event)


def _started(state: KillerState, e: Event) -> None:
    assert isinstance(e, GameStarted)
    state.players = e.players
    state.quota = e.last_words_quota
    state.day_limit = e.day_limit
    state.check_answer = e.check_answer
    state.reveal = e.reveal_role_on_death
    state.barred = e.barred_first_victim
    state.concede = e.concede
    state.discussion = e.discussion
    state.open_rulings = OpenDayRulings(**{key: getattr(e, key) for key in OPEN_BUDGET})
    state.killer_chat, state.graveyard_chat = e.killer_chat, e.graveyard_chat


def _role(state: KillerState, e: Event) -> None:
    assert isinstance(e, RoleCard)
    state.remove_living(e.seat)  # a card dealt again would otherwise count twice
    state.roles[e.seat] = e.role
    state.add_living(e.seat)


def _night(state: KillerState, e: Event) -> None:
    assert isinstance(e, NightFell)
    state.day = e.night
    state.phase = Phase.NIGHT_KILLERS
    state.night_victim = None
    state.tied = ()
    state.prev_starter = state.day_starter
    state.day_starter = None
    if state.killer_chat:  # KG-3 ruling: the living killers talk first, in seat order
        state.phase, state.order = Phase.NIGHT_CHAT, state.living(KILLER)
    if state.graveyard_chat:  # KG-14 ruling: the dead are asked with the night's first step
        state.graveyard = dead_at_nightfall(state.roles, state.alive)


def _graveyard(state: KillerState, e: Event) -> None:
    assert isinstance(e, GraveyardMessage)  # KG-14 ruling: this dead seat has answered
    state.graveyard = tuple(s for s in state.graveyard if s != e.seat)


def _kill_chosen(state: KillerState, e: Event) -> None:
    assert isinstance(e, KillChosen)
    state.night_victim = e.target
    if e.night == 1:
        state.first_night_victim = e.target


def _police_turn(state: KillerState, e: Event) -> None:
    state.phase = Phase.NIGHT_POLICE


def _dawn(state: KillerState, e: Event) -> None:
    assert isinstance(e, Dawn)
    state.phase = Phase.DAWN
    if e.victim is not None:
        state.remove_living(e.victim)


def _phase(state: KillerState, e: Event) -> None:
    assert isinstance(e, PhaseStarted)
    state.phase = e.phase
    state.context = e.context
    state.vote_round = e.round
    state.order = list(e.order)
    state.candidates = e.candidates
    if e.phase == Phase.LAST_WORDS:
        state.last_words_used += 1  # KG-7: the quota counts every dead given the floor
    if e.context == Context.OPEN:
        state.order = []  # OD-5: nobody's turn; the circle stays KG-8's (ties, next day)
    if e.phase == Phase.SPEECHES and e.context in (Context.DAY, Context.OPEN):
        state.day_order = e.order
        state.day_starter = e.order[0] if e.order else None


def _spoke(state: KillerState, e: Event) -> None:
    if state.order:
        state.order.pop(0)
    if isinstance(e, TeamMessage) and not state.order:  # KG-3 ruling: the opinions follow
        state.phase = Phase.NIGHT_KILLERS


def _voted_out(state: KillerState, e: Event) -> None:
    assert isinstance(e, VotedOut)
    state.remove_living(e.seat)


def _tied(state: KillerState, e: Event) -> None:
    assert isinstance(e, Tied)
    state.tied = e.tied


def _over(state: KillerState, e: Event) -> None:
    """The events that end a game: KG-13, KG-10, the KG-12 ruling."""
    if isinstance(e, Conceded):
        state.conceded_side = e.side
    state.forced_draw |= isinstance(e, ForcedDraw)
    state.day_limit_hit |= isinstance(e, DayLimitReached)
    state.phase = Phase.OVER


_FOLDERS = {
    GameStarted: _started,
    RoleCard: _role,
    NightFell: _night,
    KillChosen: _kill_chosen,
    PoliceTurn: _police_turn,
    Dawn: _dawn,
    PhaseStarted: _phase,
    Speech: _spoke,
    LastWords: _spoke,
    VotedOut: _voted_out,
    Tied: _tied,
    Conceded: _over,
    ForcedDraw: _over,
    DayLimitReached: _over,
    TeamMessage: _spoke,
    GraveyardMessage: _graveyard,
}
