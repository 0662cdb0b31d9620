"""The referee's state of a Four Factions game: the fold of every event.

The state holds no config: the rulings the referee applies are passed to
``resolve`` by the core, and everything else arrives in events."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import sandbox.games.four_factions.events as ev
from sandbox.core import discussion, talk
from sandbox.core.discussion import OpenDay
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import (
    Event,
    GraveyardMessage,
    GraveyardOpened,
    OpenDayEnded,
    OpenDayStarted,
    RoundClosed,
)
from sandbox.core.requests import Choice, DecisionRequest, Field, Payload, Text, request_id
from sandbox.games.four_factions.config import (
    FACTIONS,
    PAIRS,
    SEATS,
    SHIELDS,
    WEAPONS,
    Decision,
    Phase,
    Stage,
    pair_name,
)

STATEMENT_STAGES = (Stage.PROOFS, Stage.ACCUSATION, Stage.PROTECTION)  # days 1-3
_NAMED_PAIRS = tuple((pair, pair_name(pair)) for pair in PAIRS)  # asked every step


@dataclass
class FFState:
    faction: dict[int, str] = field(default_factory=dict)
    elite: dict[int, bool] = field(default_factory=dict)
    weapon: dict[int, str | None] = field(default_factory=dict)
    max_hp: dict[int, int] = field(default_factory=dict)
    hp: dict[int, int] = field(default_factory=dict)
    alive: set[int] = field(default_factory=set)
    public_dead: set[int] = field(default_factory=set)  # announced at dawn (FF-28)
    day: int = 0
    phase: str = Phase.SETUP
    stage: str = Stage.SETUP
    queue: list[int] = field(default_factory=list)  # speakers still to go (FF-18)
    claims: dict[int, str] = field(default_factory=dict)  # day-1 "am" (FF-13)
    loadout: dict[int, tuple[str, str]] = field(default_factory=dict)  # tonight (FF-5)
    last_loadout: dict[int, tuple[str, str]] = field(default_factory=dict)
    night_deaths: list[int] = field(default_factory=list)
    settled_pairs: dict[str, dict[str, str]] = field(default_factory=dict)  # FF-26, referee
    pair_results: dict[str, dict[str, str]] = field(default_factory=dict)  # announced at dawn
    limit_reached: bool = False
    limit_day: int = 0  # the day after which the day limit ended the game (FF-27)
    open: OpenDay = field(default_factory=OpenDay)  # the open day under way (OD-1)
    graveyard: tuple[int, ...] = ()  # FF-19 ruling: the dead still to answer tonight
    owed: set[int] = field(default_factory=set)  # seats still owing today's statement (OD-3)
    # ``alive`` in seat order, and seat -> the living seats but that one: kept by the
    # fold (the only code that changes ``alive``), asked by every request
    living_seats: tuple[int, ...] = field(default=(), compare=False)
    others_cache: dict[int, tuple[int, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    # ------------------------------------------------------------- queries
    def others(self, seat: int) -> tuple[int, ...]:
        """The living seats but ``seat``, in seat order; the same tuple until a seat
        joins or dies (``core.requests`` caches the membership of an options tuple)."""
        found = self.others_cache.get(seat)
        if found is None:
            found = self.others_cache[seat] = tuple(s for s in self.living_seats if s != seat)
        return found

    def set_alive(self, seat: int, alive: bool) -> None:
        if alive:
            self.alive.add(seat)
        else:
            self.alive.discard(seat)
        self.living_seats = tuple(sorted(self.alive))
        self.others_cache = {}

    def publicly_alive(self) -> list[int]:
        return [s for s in range(1, SEATS + 1) if s not in self.public_dead]

    def shield(self, seat: int) -> str:
        if self.elite[seat]:
            return self.loadout[seat][1]
        return f"anti-{self.weapon[seat]}"

    def weapon_tonight(self, seat: int) -> str:
        if self.elite[seat]:
            return self.loadout[seat][0]
        weapon = self.weapon[seat]
        assert weapon is not None
        return weapon

    def undecided_pairs(self) -> list[tuple[str, str]]:
        """Pairs the referee has not settled yet (FF-26, checked per half)."""
        return [p for p, name in _NAMED_PAIRS if name not in self.settled_pairs]

    def unannounced_pairs(self) -> list[tuple[str, str]]:
        """Pairs whose result has not been announced publicly (at dawn)."""
        return [p for p, name in _NAMED_PAIRS if name not in self.pair_results]

    def faction_alive(self, faction: str) -> bool:
        return any(self.faction[s] == faction for s in self.alive)


def speaking_order(day: int, living: Iterable[int]) -> list[int]:
    """FF-18: from seat ((day - 1) mod 16) + 1 upwards, wrapping, skipping the dead."""
    start = (day - 1) % SEATS + 1
    return sorted(living, key=lambda s: (s < start, s))


def apply_event(state: FFState, event: Event) -> None:
    handler = _HANDLERS.get(type(event))
    if handler is not None:
        handler(state, event)


def _graveyard(state: FFState, e: GraveyardOpened | GraveyardMessage) -> None:
    """FF-19 ruling: the night's ask of the dead opens; each answer closes a seat's."""
    if isinstance(e, GraveyardOpened):
        state.graveyard = e.audience
    else:
        state.graveyard = tuple(s for s in state.graveyard if s != e.seat)


def _role(state: FFState, e: ev.RoleDealt) -> None:
    state.faction[e.seat] = e.faction
    state.elite[e.seat] = e.elite
    state.weapon[e.seat] = e.weapon
    state.max_hp[e.seat] = state.hp[e.seat] = e.max_hp
    state.set_alive(e.seat, True)


def _phase(state: FFState, e: ev.PhaseStarted) -> None:
    state.day, state.phase, state.stage = e.day, e.phase, e.stage
    state.queue = speaking_order(e.day, state.living_seats) if e.phase == Phase.DAY else []
    if e.stage == Stage.LOADOUT:
        state.last_loadout.update(state.loadout)
        state.loadout = {}
        state.night_deaths = []


def _spoken(state: FFState, seat: int) -> None:
    if state.queue and state.queue[0] == seat:
        state.queue.pop(0)


def _stated(state: FFState, seat: int) -> None:
    """OD-3: a statement (or none, FF-29) is given once; a mere speech is none."""
    _spoken(state, seat)
    state.owed.discard(seat)


def _open_day(state: FFState, e: OpenDayStarted) -> None:
    """OD-1: the day talks in ask rounds instead of FF-18's queue; on days 1-3
    every living seat owes its statement once (OD-3), also a day-3 seat with
    nobody to protect, who is then recorded as giving none (FF-15, FF-29)."""
    state.open.apply(e)
    state.queue = []
    state.owed = set(e.seats) if state.stage in STATEMENT_STAGES else set()


def _open_round(state: FFState, e: RoundClosed | OpenDayEnded) -> None:
    state.open.apply(e)


def _proofs(state: FFState, e: ev.ProofsGiven) -> None:
    state.claims[e.seat] = e.am
    _stated(state, e.seat)


def _statement(state: FFState, e: ev.AccusationMade | ev.ProtectionMade | ev.NoStatement) -> None:
    _stated(state, e.seat)


def _said(state: FFState, e: ev.Spoke | ev.Passed) -> None:
    _spoken(state, e.seat)


def _loadout(state: FFState, e: ev.LoadoutChosen) -> None:
    state.loadout[e.seat] = (e.weapon, e.shield)


def _duel(state: FFState, e: ev.DuelResolved) -> None:
    for s in e.strikes:
        struck = int(s["struck"])
        state.hp[struck] = int(s["hp_after"])
        if state.hp[struck] <= 0 and struck in state.alive:
            state.set_alive(struck, False)
            state.night_deaths.append(struck)


def _settled(state: FFState, e: ev.PairSettled) -> None:
    state.settled_pairs[e.pair] = dict(e.results)


def _pair(state: FFState, e: ev.PairDecided) -> None:
    state.pair_results[e.pair] = dict(e.results)


def _dawn(state: FFState, e: ev.DawnReport) -> None:
    state.public_dead.update(e.dead)


def _limit(state: FFState, e: ev.DayLimitReached) -> None:
    state.limit_reached = True
    state.limit_day = e.day


_HANDLERS: dict[type[Event], Callable[[FFState, Any], None]] = {
    ev.RoleDealt: _role,
    ev.PhaseStarted: _phase,
    ev.ProofsGiven: _proofs,
    ev.AccusationMade: _statement,
    ev.ProtectionMade: _statement,
    ev.Spoke: _said,
    ev.NoStatement: _statement,
    ev.Passed: _said,
    OpenDayStarted: _open_day,
    RoundClosed: _open_round,
    OpenDayEnded: _open_round,
    ev.LoadoutChosen: _loadout,
    ev.DuelResolved: _duel,
    ev.PairSettled: _settled,
    ev.PairDecided: _pair,
    ev.DawnReport: _dawn,
    ev.DayLimitReached: _limit,
    GraveyardOpened: _graveyard,
    GraveyardMessage: _graveyard,
}

__all__ = ["FACTIONS", "FFState", "apply_event", "speaking_order"]


# ------------------------------------------------------------ requests
# The Four Factions requests: the decisions of each stage (FF-13..FF-19), their
# rule checks and fallbacks.

SPEECH = Text("speech", "what you say to everyone (public; may be a lie)")

# FF-29 and the fallbacks of docs/rules-four-factions.md. A None in a required
# statement field marks "gave none"; no seat can submit None there itself.
FALLBACKS: dict[str, dict[str, object]] = {
    Decision.PROOFS: {"am": None, "speech": ""},
    Decision.ACCUSATION: {"target": None, "faction": None, "speech": ""},
    Decision.PROTECTION: {"target": None, "speech": ""},
    Decision.SPEAK: {"speech": ""},
    Decision.ATTACK: {"target": None},
    Decision.GRAVEYARD: {"message": ""},  # FF-19 ruling: a pass
}
DEFAULT_LOADOUT = ("rock", "anti-rock")  # first fighting night; later: last night's
# Fields whose options never change, built once (requests are rebuilt every step).
AM = Choice("am", FACTIONS, "the one faction you say you are; you deny the other three")
WEAPON = Choice("weapon", WEAPONS, "your weapon for both halves of tonight")
SHIELD = Choice("shield", SHIELDS, "your shield for both halves of tonight")
FACTION = Choice("faction", FACTIONS, "a faction the target denied on day 1")


def open_requests(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    # FF-19 ruling (graveyard_chat): the dead are asked with the night's first step
    return talk.with_graveyard(_living(state, step), state.graveyard, step, "FF-19", state.day)


def _living(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    if state.open.open:  # OD-5: an open day asks every living seat with budget left
        return _message_requests(state, step)
    if state.phase == Phase.DAY and state.queue:
        return _day_request(state, step, state.queue[0])
    if state.stage == Stage.LOADOUT:
        return tuple(_loadout_request(step, s) for s in state.living_seats if state.elite[s])
    if state.stage in (Stage.FIRST_HALF, Stage.SECOND_HALF):
        return _attacks(state, step)
    return ()


def _request(
    step: int, seat: int, decision: str, rule: str, text: str, *fields: Field
) -> DecisionRequest:
    return DecisionRequest(request_id(step, seat), seat, decision, rule, text, fields)


def _others(state: FFState, seat: int) -> tuple[int, ...]:
    return state.others(seat)


def _day_request(state: FFState, step: int, seat: int) -> tuple[DecisionRequest, ...]:
    if state.stage == Stage.PROOFS:
        text = "Give your four proofs: say which one faction you are (three 'am not', one 'am')."
        return (_request(step, seat, Decision.PROOFS, "FF-13", text, AM, SPEECH),)
    if state.stage == Stage.ACCUSATION:
        target = Choice("target", _others(state, seat), "a living other seat you accuse")
        text = "Accuse a living seat of belonging to a faction it denied on day 1."
        return (_request(step, seat, Decision.ACCUSATION, "FF-14", text, target, FACTION, SPEECH),)
    if state.stage == Stage.PROTECTION:
        options = tuple(s for s in _others(state, seat) if s in state.claims)
        if not options:
            return ()  # nobody can be protected: recorded as no statement (FF-15/29)
        target = Choice("target", options, "a living other seat whose day-1 claim you back")
        text = "Protect a living seat: argue that the faction it claimed on day 1 is true."
        return (_request(step, seat, Decision.PROTECTION, "FF-15", text, target, SPEECH),)
    text = "Speak once to everyone, or send an empty speech to pass."
    return (_request(step, seat, Decision.SPEAK, "FF-17", text, SPEECH),)


def _loadout_request(step: int, seat: int) -> DecisionRequest:
    text = "Choose tonight's weapon and shield; both hold for the whole night."
    return _request(step, seat, Decision.LOADOUT, "FF-5", text, WEAPON, SHIELD)


def _attacks(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    # FF-19: odd seats go out in the first half, even seats in the second.
    attacker_parity = 1 if state.stage == Stage.FIRST_HALF else 0
    # Targets are the seats not yet announced dead: a death of this night is
    # not public, so listing only actual survivors would leak it (FF-20/28).
    targets = tuple(s for s in state.publicly_alive() if s % 2 != attacker_parity)
    if not targets:
        return ()
    half = "first" if attacker_parity else "second"
    target = Choice("target", targets, "the seat you attack, or null to stay home", True)
    text = f"Attack one seat of the other parity in the {half} half of the night, or stay home."
    return tuple(
        _request(step, s, Decision.ATTACK, "FF-19", text, target)
        for s in state.living_seats
        if s % 2 == attacker_parity
    )


def check(state: FFState, request: DecisionRequest, payload: Payload) -> None:
    """Rule checks beyond the shape: FF-14's denied faction; in an open day, OD-9
    and the message's own checks (OD-2, OD-3, FF-14)."""
    if request.decision == Decision.MESSAGE:
        seat = request.seat
        discussion.check_answer(
            state.open,
            seat,
            payload,
            state.living_seats,
            check_message=lambda message: _check_message(state, seat, message),
        )
    elif request.decision == Decision.ACCUSATION:
        _check_accusation(state, payload)


def _check_accusation(state: FFState, payload: Payload) -> None:
    target = int(payload["target"])
    claimed = state.claims.get(target)
    if claimed is None:
        return  # FF-14 ruling: a target without proofs may be accused of any faction
    if payload["faction"] == claimed:
        denied = tuple(f for f in FACTIONS if f != claimed)
        raise IllegalDecision(
            "FF-14",
            f"Seat {target} claimed '{claimed}' on day 1; accuse it of a faction it denied.",
            {"faction": denied},
        )


def fallback(state: FFState, request: DecisionRequest) -> Payload:
    if request.decision == Decision.MESSAGE:
        return discussion.fallback()  # OD-8: a wait; an owed statement waits for FF-29
    if request.decision == Decision.LOADOUT:
        weapon, shield = state.last_loadout.get(request.seat, DEFAULT_LOADOUT)
        return {"weapon": weapon, "shield": shield}
    return dict(FALLBACKS[request.decision])


# ------------------------------------------------------------ the open day
# OD-1..OD-6 wired for Four Factions: a message is a speech and may carry the
# day's statement (OD-3); the core asks, draws and ends the day.

STATEMENT_KEYS = ("am", "target", "faction")  # the fields that make a message a statement


def statement_fields(state: FFState, seat: int) -> tuple[Field, ...]:
    """The statement fields ``seat``'s messages may carry today (OD-3): the same
    as the turn's request of that day (FF-13..FF-15); none from day 4 on."""
    if state.stage == Stage.PROOFS:
        return (AM,)
    if state.stage == Stage.ACCUSATION:
        return (Choice("target", _others(state, seat), "a living other seat you accuse"), FACTION)
    if state.stage == Stage.PROTECTION:
        options = tuple(s for s in _others(state, seat) if s in state.claims)
        if options:  # FF-15: nobody to protect, no field (recorded as none, FF-29)
            return (Choice("target", options, "a living other seat whose day-1 claim you back"),)
    return ()


_STATEMENT_WORDS = {
    Stage.PROOFS: "your four proofs ('am': the one faction you say you are)",
    Stage.ACCUSATION: "your accusation ('target' and 'faction': a faction it denied on day 1)",
    Stage.PROTECTION: "your protection ('target': a seat that gave proofs on day 1)",
}


def _message_text(state: FFState, seat: int) -> str:
    day = state.open
    text = (
        f"Open discussion, round {day.round}: post a message now (speak: true) or wait "
        f"(speak: false). You may post {day.left(seat)} more today."
    )
    if seat in state.owed and statement_fields(state, seat):
        text += f" You still owe {_STATEMENT_WORDS[Stage(state.stage)]}: add it to a message."
    elif state.stage in STATEMENT_STAGES:
        text += " You owe no statement now: a message is speech only."
    return text


def _message_requests(state: FFState, step: int) -> tuple[DecisionRequest, ...]:
    return discussion.ask_requests(
        state.open,
        state.living_seats,
        step,
        Decision.MESSAGE,
        lambda seat: _message_text(state, seat),
        lambda seat: (SPEECH, *statement_fields(state, seat)),
        rule="OD-5",
    )


def carries_statement(payload: Payload) -> bool:
    return any(payload.get(key) is not None for key in STATEMENT_KEYS)


def _check_message(state: FFState, seat: int, payload: Payload) -> None:
    """A posted message (OD-2): it says something or gives a statement; a
    statement only from a seat still owing one (OD-3), whole, and FF-14's."""
    if not carries_statement(payload):
        if not str(payload.get("speech") or "").strip():
            raise IllegalDecision("OD-2", "An empty message says nothing: wait instead.")
        return
    if seat not in state.owed:
        given = state.stage in STATEMENT_STAGES  # then it gave its statement already
        why = "has already given its statement today" if given else "owes no statement today"
        raise IllegalDecision("OD-3", f"Seat {seat} {why}; post speech only, or wait.")
    if state.stage == Stage.ACCUSATION:
        if payload.get("target") is None or payload.get("faction") is None:
            raise IllegalDecision("FF-14", "An accusation names both a 'target' and a 'faction'.")
        _check_accusation(state, payload)
