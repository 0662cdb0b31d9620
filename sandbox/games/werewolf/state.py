"""The referee's state of a Werewolf game: the fold of every event, and the
end read from it (WW-17..WW-21: the winning team and each seat's result)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sandbox.games.werewolf.events as ev
from sandbox.core.discussion import OpenDay
from sandbox.core.events import Event, GraveyardMessage, OpenDayStarted
from sandbox.core.talk import dead_at_nightfall
from sandbox.core.variant import Outcome, Result
from sandbox.games.werewolf.config import LATER_DEFAULTS
from sandbox.games.werewolf.info import VILLAGE, WEREWOLF, WEREWOLVES, Ending, Phase, team_of


@dataclass
class WerewolfState:
    players: int = 0
    rulings: dict[str, Any] = field(default_factory=dict)  # from GameStarted (WW-4)
    roles: dict[int, str] = field(default_factory=dict)
    alive: set[int] = field(default_factory=set)
    living_seats: tuple[int, ...] = ()  # sorted; kept with ``alive``
    day: int = 0  # night n and day n share the number n
    phase: str = Phase.SETUP
    queue: list[int] = field(default_factory=list)  # who answers next, in order
    # night
    protected: int | None = None  # WW-8: tonight's protection
    last_protected: int | None = None  # WW-8: the previous night's (doctor_repeat)
    inspected: int | None = None  # WW-10: tonight's check, resolved at dawn
    checked: set[int] = field(default_factory=set)  # WW-10: every seat checked so far
    pack_mode: str = ""
    kill_votes: dict[int, int | None] = field(default_factory=dict)
    kill_target: int | None = None
    # day
    turn: int = 0  # speeches so far today (WW-12)
    turns: int = 0  # bidding: speeches a day
    bidders: tuple[int, ...] = ()
    last_named: tuple[int, ...] = ()  # WW-12 bidding: seats the previous speech named
    first_speaker: int | None = None  # WW-12 rotate: the latest day's first speaker
    last_words_cause: str = ""  # WW-11: "night" or "exile"
    vote_mode: str = ""
    candidates: tuple[int, ...] = ()
    ballots: dict[int, int | None] = field(default_factory=dict)
    open: OpenDay = field(default_factory=OpenDay)  # WW-12 open: the day under way (OD-4)
    ending: str | None = None  # set by RolesRevealed (WW-20)
    graveyard: tuple[int, ...] = ()  # WW-16 ruling: the dead still to answer tonight

    @property
    def reveal_mode(self) -> str:
        return str(self.rulings.get("reveal_on_death", "role"))

    def ruling(self, key: str) -> Any:
        if key in LATER_DEFAULTS:  # absent from games announced before it existed
            return self.rulings.get(key, LATER_DEFAULTS[key])
        return self.rulings[key]

    def fixed_night(self) -> bool:
        """WW-5 ``first_night = "fixed"`` (Mini-Mafia): night 1 is decided by
        the referee (resolve._fixed_night); nobody is asked."""
        return self.day == 1 and self.ruling("first_night") == "fixed"

    def living(self, role: str | None = None) -> list[int]:
        if role is None:
            return list(self.living_seats)
        return [s for s in self.living_seats if self.roles[s] == role]

    def living_wolves(self) -> tuple[int, ...]:
        return tuple(s for s in self.living_seats if self.roles[s] == WEREWOLF)

    def living_village(self) -> tuple[int, ...]:
        return tuple(s for s in self.living_seats if self.roles[s] != WEREWOLF)

    def kill(self, seat: int) -> None:
        self.alive.discard(seat)
        self.living_seats = tuple(sorted(self.alive))


def fold(state: WerewolfState, event: Event) -> None:
    """Apply one event to the referee's state (unknown kinds are ignored)."""
    state.open.apply(event)  # OD-4..OD-6: it folds its own kinds and ignores the rest
    handler = _FOLDERS.get(type(event))
    if handler is not None:
        handler(state, event)


def _started(state: WerewolfState, e: Any) -> None:
    state.players = e.players
    state.rulings = dict(e.rulings)


def _role(state: WerewolfState, e: Any) -> None:
    state.roles[e.seat] = e.role
    state.alive.add(e.seat)
    state.living_seats = tuple(sorted(state.alive))


def _night(state: WerewolfState, e: Any) -> None:
    state.day = e.night
    state.phase = Phase.NIGHT_ACTIONS
    state.queue = []
    # WW-8: "the previous night" is the night before this one; a night without a
    # protection clears it (protected stays None).
    state.last_protected = state.protected
    state.protected = None
    state.inspected = None
    state.kill_votes = {}
    state.kill_target = None
    if state.ruling("graveyard_chat"):  # WW-16 ruling: asked with the night's first step
        state.graveyard = dead_at_nightfall(state.roles, state.alive)


def _graveyard(state: WerewolfState, e: Any) -> None:
    state.graveyard = tuple(s for s in state.graveyard if s != e.seat)  # it has answered


def _protection(state: WerewolfState, e: Any) -> None:
    state.protected = e.target


def _inspection(state: WerewolfState, e: Any) -> None:
    state.inspected = e.target
    if e.target is not None:
        state.checked.add(e.target)


def _pack_turn(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.WOLF_CHAT if e.stage == "chat" else Phase.WOLF_KILL
    state.pack_mode = e.mode
    state.queue = list(e.order)


def _pop(state: WerewolfState, e: Any) -> None:
    if state.queue:
        state.queue.pop(0)


def _cast(
    state: WerewolfState, votes: Mapping[str, int | None], into: dict[int, int | None]
) -> None:
    """Pack votes (WW-7) and ballots (WW-14) alike: each voter's choice is
    recorded in ``into`` and the voter leaves the queue."""
    for seat, target in votes.items():
        into[int(seat)] = target
        if int(seat) in state.queue:
            state.queue.remove(int(seat))


def _wolf_votes(state: WerewolfState, e: Any) -> None:
    _cast(state, e.votes, state.kill_votes)


def _kill_chosen(state: WerewolfState, e: Any) -> None:
    state.kill_target = e.target


def _dawn(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.DAWN
    state.queue = []
    state.turn = 0
    state.last_named = ()
    state.ballots = {}
    if e.victim is not None:
        state.kill(e.victim)


def _last_words_turn(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.LAST_WORDS
    state.queue = [e.seat]
    state.last_words_cause = e.cause


def _speaking_order(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.DISCUSSION
    state.queue = list(e.order) * e.rounds
    state.first_speaker = e.order[0] if e.order else None


def _open_day(state: WerewolfState, e: Any) -> None:
    """WW-12 open: the day's discussion is asked in rounds (OD-5), nobody queued."""
    state.phase = Phase.DISCUSSION
    state.queue = []


def _bidding_turn(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.BIDDING
    state.turns = e.turns
    state.bidders = e.bidders
    state.queue = []


def _floor(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.DISCUSSION
    state.queue = [e.seat]


def _speech(state: WerewolfState, e: Any) -> None:
    _pop(state, e)
    state.turn = e.turn
    state.last_named = tuple(sorted({*e.accuse, *e.vouch}))


def _vote_opened(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.VOTE
    state.vote_mode = e.mode
    state.queue = list(e.order)
    state.candidates = e.candidates
    state.ballots = {}


def _ballots(state: WerewolfState, e: Any) -> None:
    _cast(state, e.ballots, state.ballots)


def _exiled(state: WerewolfState, e: Any) -> None:
    state.kill(e.seat)


def _over(state: WerewolfState, e: Any) -> None:
    state.phase = Phase.OVER
    state.queue = []


def _roles_revealed(state: WerewolfState, e: Any) -> None:
    _over(state, e)
    state.ending = e.ending


_FOLDERS: dict[type[Event], Callable[[WerewolfState, Any], None]] = {
    ev.GameStarted: _started,
    ev.RoleCard: _role,
    ev.NightFell: _night,
    ev.Protection: _protection,
    ev.Inspection: _inspection,
    ev.PackTurn: _pack_turn,
    ev.WolfMessage: _pop,
    ev.WolfVotes: _wolf_votes,
    ev.KillChosen: _kill_chosen,
    ev.Dawn: _dawn,
    ev.LastWordsTurn: _last_words_turn,
    ev.LastWords: _pop,
    ev.SpeakingOrder: _speaking_order,
    OpenDayStarted: _open_day,
    ev.BiddingTurn: _bidding_turn,
    ev.FloorWon: _floor,
    ev.Speech: _speech,
    ev.VoteOpened: _vote_opened,
    ev.Ballots: _ballots,
    ev.Exiled: _exiled,
    ev.DayLimitReached: _over,
    ev.RolesRevealed: _roles_revealed,
    GraveyardMessage: _graveyard,
}


# ------------------------------------------------------------ the end
# How a Werewolf game ends (WW-17..WW-21), read from the state: the winning
# team and each seat's result. The resolution checks it at the points WW-17 names.


SUMMARIES = {
    Ending.VILLAGE_WINS: "No werewolf is alive: the village team wins (WW-18).",
    Ending.WEREWOLVES_WIN: (
        "The living werewolves are as many as the other living seats: the werewolves win (WW-19)."
    ),
    Ending.DAY_LIMIT: "The last day ended without a winner: a draw for every seat (WW-21).",
}


def decided(state: WerewolfState) -> Ending | None:
    """WW-18/WW-19 on the living seats (None: the game goes on)."""
    wolves = len(state.living_wolves())
    if wolves == 0:
        return Ending.VILLAGE_WINS
    if wolves >= len(state.living_village()):
        return Ending.WEREWOLVES_WIN
    return None


def winner(ending: Ending) -> str | None:
    """The winning team, or None for a draw."""
    if ending == Ending.VILLAGE_WINS:
        return VILLAGE
    if ending == Ending.WEREWOLVES_WIN:
        return WEREWOLVES
    return None


def outcome(state: WerewolfState) -> Outcome | None:
    if state.ending is None:
        return None
    ending = Ending(state.ending)
    team = winner(ending)
    # WW-20: every seat of the winning team wins, dead or alive.
    results = {
        seat: Result.DRAW
        if team is None
        else (Result.WIN if team_of(role) == team else Result.LOSE)
        for seat, role in state.roles.items()
    }
    return Outcome(ending, results, SUMMARIES[ending])
