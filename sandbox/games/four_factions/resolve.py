"""Resolving a complete step into events: statements (FF-13..15, FF-29),
open-day speech (FF-17), loadouts (FF-5), half-nights (FF-19..22), pair
results (FF-26), dawn (FF-28) and the day limit (FF-27).

The deal, here too: setting up a Four Factions game: dealing roles (FF-8), a seeded shuffle of
seats onto the sixteen role slots respecting every fixed [[seat]] entry (a
perfect matching by augmenting paths honours any satisfiable set of fixed
seats), then the role cards, the elites' knowledge (FF-9, FF-10) and day 1.

The end, here too: how a Four Factions game ends: once both pairs' results are announced (FF-26,
FF-27: only announced results count, so at dawn), or at the day limit, where an
undecided pair is a draw by limit (FF-27).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import sandbox.games.four_factions.events as ev
from sandbox.core import discussion, talk
from sandbox.core.events import Event, GraveyardOpened, OpenDayEnded
from sandbox.core.requests import Payload
from sandbox.core.variant import Outcome, Result
from sandbox.games.four_factions.config import (
    FIRST_FIGHT_DAY,
    PAIRS,
    WEAPONS,
    Ending,
    FixedSeat,
    FourFactionsConfig,
    Phase,
    Stage,
    match_seats,
    pair_name,
)
from sandbox.games.four_factions.state import FFState, carries_statement

if TYPE_CHECKING:  # only for annotations: the config check needs slots.py, not this
    from sandbox.games.four_factions.config import FourFactionsConfig


NIGHTFALL = (Stage.LOADOUT, Stage.QUIET)  # the stages a night opens with (FF-16, FF-19)


def resolve(
    state: FFState,
    config: FourFactionsConfig,
    answers: Mapping[int, Payload],
    rng: random.Random | None = None,
) -> Iterator[Event]:
    """One step's answers into events. FF-19 ruling (graveyard_chat): the
    graveyard's messages first, then the step as if the dead were not asked; at
    nightfall the night's ask of the dead is announced to them (the state holds
    no rulings, so the ask must be an event)."""
    graves, answers = talk.graveyard_first(answers, state.graveyard, state.day)
    yield from graves
    for event in _resolve(state, config, answers, rng):
        yield event  # folded before the generator resumes: the state is current
        nightfall = isinstance(event, ev.PhaseStarted) and event.stage in NIGHTFALL
        dead = talk.dead_at_nightfall(state.faction, state.alive) if nightfall else ()
        if config.graveyard_chat and dead:
            yield GraveyardOpened(state.day, dead)


def _resolve(
    state: FFState,
    config: FourFactionsConfig,
    answers: Mapping[int, Payload],
    rng: random.Random | None,
) -> Iterator[Event]:
    if state.open.open:  # OD-5: an ask round of an open day
        yield from _open_round(state, answers, rng or random.Random(0))
    elif state.phase == Phase.DAY and state.queue:
        yield _statement(state, state.queue[0], answers.get(state.queue[0]))
        if not state.queue:
            yield _next_phase_after_day(state)
    elif state.stage == Stage.LOADOUT:
        yield from _loadouts(state, answers)
        yield ev.PhaseStarted(state.day, Phase.NIGHT, Stage.FIRST_HALF)
    elif state.stage in (Stage.FIRST_HALF, Stage.SECOND_HALF):
        yield from _half(state, config, answers)
    elif state.stage == Stage.QUIET:
        yield from _dawn_or_limit(state, config)
    else:  # setup, or a day whose speakers are all gone
        yield _next_phase_after_day(state)


def _open_round(
    state: FFState, answers: Mapping[int, Payload], rng: random.Random
) -> Iterator[Event]:
    """Close the round (OD-5, OD-6); once the day ends, every seat still owing
    its statement gives none, in seat order (OD-3, FF-29), and night falls."""
    owed = set(state.owed)  # the round's statements are made before any is folded

    def message(seat: int, answer: Payload) -> list[Event]:
        if seat in owed and carries_statement(answer):
            owed.discard(seat)  # OD-3: the first accepted message carrying one gives it
            return [_statement(state, seat, answer)]
        return [ev.Spoke(seat, str(answer.get("speech") or ""))]  # OD-2: a speech

    events = discussion.close_round(state.open, state.living_seats, answers, rng, message)
    yield from events
    if any(isinstance(e, OpenDayEnded) for e in events):
        stage = Stage(state.stage)
        for seat in sorted(owed):
            yield ev.NoStatement(seat, stage)  # FF-29: nothing is invented
        yield _next_phase_after_day(state)


def _next_phase_after_day(state: FFState) -> ev.PhaseStarted:
    # FF-16/17: nights 1-3 are quiet; fighting nights start with elite loadouts.
    stage = Stage.LOADOUT if state.day >= FIRST_FIGHT_DAY else Stage.QUIET
    return ev.PhaseStarted(state.day, Phase.NIGHT, stage)


def day_stage(day: int) -> Stage:
    return {1: Stage.PROOFS, 2: Stage.ACCUSATION, 3: Stage.PROTECTION}.get(day, Stage.OPEN)


def _statement(state: FFState, seat: int, answer: Payload | None) -> Event:
    """The one event of a day speaker's turn."""
    stage = state.stage
    if stage == Stage.OPEN:
        text = "" if answer is None else str(answer["speech"])
        return ev.Spoke(seat, text) if text.strip() else ev.Passed(seat)
    key = "am" if stage == Stage.PROOFS else "target"
    if answer is None or answer.get(key) is None:
        return ev.NoStatement(seat, stage)  # FF-29: never an invented claim
    speech = str(answer.get("speech") or "")  # optional in an open day's message (OD-5)
    if stage == Stage.PROOFS:
        return ev.ProofsGiven(seat, str(answer["am"]), speech)
    if stage == Stage.ACCUSATION:
        target, faction = int(answer["target"]), str(answer["faction"])
        return ev.AccusationMade(seat, target, faction, speech)
    return ev.ProtectionMade(seat, int(answer["target"]), speech)


def _loadouts(state: FFState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    for seat in sorted(answers):
        answer = answers[seat]
        yield ev.LoadoutChosen(seat, state.day, str(answer["weapon"]), str(answer["shield"]))


def _half(
    state: FFState, config: FourFactionsConfig, answers: Mapping[int, Payload]
) -> Iterator[Event]:
    half = 1 if state.stage == Stage.FIRST_HALF else 2
    for attacker in sorted(answers):  # FF-20: ascending attacker seat
        target = answers[attacker].get("target")
        if target is not None and attacker in state.alive:
            yield from _attack(state, config, half, attacker, int(target))
    yield from _settle_pairs(state, half)
    if not state.undecided_pairs():
        yield from _dawn(state, config)  # the game ends now: announce the night's dead
    elif half == 1:
        yield ev.PhaseStarted(state.day, Phase.NIGHT, Stage.SECOND_HALF)
    else:
        yield from _dawn_or_limit(state, config)


def _fighter(state: FFState, seat: int) -> Fighter:
    return Fighter(
        seat, state.elite[seat], state.weapon_tonight(seat), state.shield(seat), state.hp[seat]
    )


def _attack(
    state: FFState, config: FourFactionsConfig, half: int, attacker: int, target: int
) -> Iterator[Event]:
    if target not in state.alive:
        yield ev.CorpseFound(attacker, state.day, half, target)  # FF-20
        return
    a, d = _fighter(state, attacker), _fighter(state, target)
    strikes = duel(a, d, config.wounds_between_regulars)  # FF-23 ruling
    record = tuple(asdict(s) for s in strikes)  # {striker, struck, weapon, effect, hp_after}
    yield ev.DuelResolved(state.day, half, attacker, target, record)
    back = strikes[1].weapon if len(strikes) > 1 else None
    hp_a, hp_d = _hp_after(strikes, attacker, a.hp), _hp_after(strikes, target, d.hp)
    yield ev.AttackReport(
        attacker, state.day, half, target, a.weapon, back, _outcomes(strikes, attacker), hp_a
    )
    shown = attacker if config.defender_learns_attacker else None  # FF-12
    yield ev.DefenceReport(
        target, state.day, half, shown, a.weapon, _outcomes(strikes, target), hp_d
    )


def _hp_after(strikes: tuple[Strike, ...], seat: int, start: int) -> int:
    hp = start
    for s in strikes:
        if s.struck == seat:
            hp = s.hp_after
    return hp


def _outcomes(strikes: tuple[Strike, ...], viewer: int) -> tuple[dict[str, Any], ...]:
    """Each strike as the viewer may know it: who struck (you / the other side),
    with what, the effect, and whether the struck one died; never the other's HP."""
    return tuple(
        {
            "by": "you" if s.striker == viewer else "opponent",
            "weapon": s.weapon,
            "effect": s.effect,
            "died": s.killed,
        }
        for s in strikes
    )


def _settle_pairs(state: FFState, half: int) -> Iterator[Event]:
    """FF-26, checked once every duel of the half is resolved (so one half's
    eliminations are simultaneous). Only the referee learns it now: the public
    announcement waits for dawn (see ``_dawn``)."""
    for x, y in state.undecided_pairs():
        x_alive, y_alive = state.faction_alive(x), state.faction_alive(y)
        if x_alive and y_alive:
            continue
        if not x_alive and not y_alive:
            results = {x: "draw", y: "draw"}
        elif x_alive:
            results = {x: "win", y: "lose"}
        else:
            results = {x: "lose", y: "win"}
        yield ev.PairSettled(pair_name((x, y)), results, state.day, half)


def _dawn(state: FFState, config: FourFactionsConfig) -> Iterator[Event]:
    """FF-28: the night's dead in seat order, so the order of death (which half,
    which duel first) stays secret; then FF-26: every pair settled tonight."""
    dead = tuple(sorted(state.night_deaths))
    reveal = config.reveal_faction_on_death  # FF-28 option
    factions = {str(s): state.faction[s] for s in dead} if reveal else {}
    yield ev.DawnReport(state.day + 1, dead, factions)
    for pair in state.unannounced_pairs():
        name = pair_name(pair)
        if name in state.settled_pairs:
            yield ev.PairDecided(name, state.settled_pairs[name], state.day)


def _dawn_or_limit(state: FFState, config: FourFactionsConfig) -> Iterator[Event]:
    if state.stage == Stage.SECOND_HALF:
        yield from _dawn(state, config)
    if state.day >= config.day_limit:
        yield ev.DayLimitReached(state.day)  # FF-27
        return
    day = state.day + 1
    yield from start_day(day, state.living_seats, config)


def start_day(day: int, living: Sequence[int], config: FourFactionsConfig) -> Iterator[Event]:
    """Day ``day`` opens: its speakers take turns (FF-18), or an open
    discussion opens among the living (OD-1, OD-4)."""
    yield ev.PhaseStarted(day, Phase.DAY, day_stage(day))
    if config.discussion == discussion.OPEN:
        yield discussion.open_day(day, living, config)


# ------------------------------------------------------------ the deal


def deal(
    specs: Sequence[FixedSeat], balanced: bool, rng: random.Random
) -> dict[int, tuple[str, bool, str | None]]:
    """Seat -> (faction, elite, weapon). Random mode draws unfixed weapons (FF-8)."""
    slots = match_seats(specs, balanced=balanced, order=rng)
    fixed_weapon = {s.seat: s.weapon for s in specs if s.weapon is not None}
    roles: dict[int, tuple[str, bool, str | None]] = {}
    for seat in sorted(slots):
        slot = slots[seat]
        weapon = slot.weapon
        if not slot.elite and weapon is None:
            weapon = fixed_weapon.get(seat) or rng.choice(WEAPONS)
        roles[seat] = (slot.faction, slot.elite, weapon)
    return roles


def setup_events(config: FourFactionsConfig, rng: random.Random) -> Iterator[Event]:
    roles = deal(config.seat, config.weapon_assignment == "balanced", rng)  # FF-8
    for seat, (faction, elite, weapon) in roles.items():
        shield = None if weapon is None else shield_of(weapon)  # FF-6
        yield ev.RoleDealt(seat, faction, elite, weapon, shield, config.seat_hp(seat))
    elites = {f: s for s, (f, e, _) in roles.items() if e}
    for seat, (faction, elite, _) in roles.items():
        if elite:
            yield ev.EliteKnowledge(seat, _known_regulars(config, roles, faction))  # FF-9
        else:
            yield ev.EliteKnown(seat, elites[faction])  # FF-10
    yield from start_day(1, tuple(sorted(roles)), config)


def _known_regulars(
    config: FourFactionsConfig,
    roles: Mapping[int, tuple[str, bool, str | None]],
    faction: str,
) -> dict[str, str]:
    own_only = config.elite_knowledge == "own_faction"
    return {
        str(s): f
        for s, (f, elite, _) in sorted(roles.items())
        if not elite and (not own_only or f == faction)
    }


# ------------------------------------------------------------ the end


def outcome(state: FFState) -> Outcome | None:
    if len(state.pair_results) < len(PAIRS) and not state.limit_reached:
        return None  # asked after every step: the usual answer without building lists
    undecided = state.unannounced_pairs()
    if undecided and not state.limit_reached:
        return None
    by_faction: dict[str, str] = {}
    for result in state.pair_results.values():
        by_faction.update(result)
    for pair in undecided:  # FF-27: draw by limit
        by_faction.update({f: Result.DRAW.value for f in pair})
    results = {s: by_faction[f] for s, f in sorted(state.faction.items())}
    ending = Ending.DAY_LIMIT if undecided else Ending.PAIRS_DECIDED
    return Outcome(ending, results, _summary(state, by_faction, undecided))


def _summary(state: FFState, by_faction: dict[str, str], undecided: list[tuple[str, str]]) -> str:
    parts = []
    for x, y in PAIRS:
        name = pair_name((x, y))
        how = " (day limit)" if (x, y) in undecided else ""
        parts.append(f"{name}: {x} {by_faction[x]}, {y} {by_faction[y]}{how}")
    end = f"Day limit {state.limit_day} reached" if undecided else "Both pairs decided"
    return f"{end} on day {state.day}. " + "; ".join(parts) + "."


# ------------------------------------------------------------ strikes
# The Four Factions strike table (FF-21) as data, and the duel procedure (FF-22)
# that reads it. Pure functions, no state.

Effect = Literal["none", "kill", "wound"]

# FF-4: what each weapon beats.
BEATS: Mapping[str, str] = {"rock": "scissors", "scissors": "paper", "paper": "rock"}

# FF-21, the one strike table: (striking weapon, weapon the struck shield guards
# against) -> effect. Same weapon: no effect; the weapon beats the guarded one:
# kill whatever the HP; the guarded weapon beats the strike: light wound (HP - 1).
STRIKE_TABLE: Mapping[tuple[str, str], Effect] = {
    ("rock", "rock"): "none",
    ("rock", "scissors"): "kill",
    ("rock", "paper"): "wound",
    ("scissors", "scissors"): "none",
    ("scissors", "paper"): "kill",
    ("scissors", "rock"): "wound",
    ("paper", "paper"): "none",
    ("paper", "rock"): "kill",
    ("paper", "scissors"): "wound",
}


def shield_of(weapon: str) -> str:
    """The shield guarding against ``weapon`` (FF-6: a regular's own shield)."""
    return f"anti-{weapon}"


def guarded(shield: str) -> str:
    """The weapon a shield guards against ('anti-paper' -> 'paper')."""
    return shield.removeprefix("anti-")


# The same table keyed by the struck one's shield as the duel meets it, built once
# from STRIKE_TABLE: a strike is then one lookup (there is one per duel strike).
_BY_SHIELD: Mapping[tuple[str, str], Effect] = {
    (weapon, shield_of(guarded_weapon)): effect
    for (weapon, guarded_weapon), effect in STRIKE_TABLE.items()
}


@dataclass(frozen=True, slots=True)
class Fighter:
    """One side of a duel, as the referee knows it for this night."""

    seat: int
    elite: bool
    weapon: str
    shield: str
    hp: int


@dataclass(frozen=True, slots=True)
class Strike:
    """One strike of a duel and its result on the struck fighter."""

    striker: int
    struck: int
    weapon: str
    effect: Effect
    hp_after: int

    @property
    def killed(self) -> bool:
        return self.hp_after <= 0


def strike_effect(weapon: str, shield: str, *, regular_vs_regular: bool, wounds: bool) -> Effect:
    """FF-21 for one strike; the FF-23 ruling option turns regular-vs-regular
    wounds into no effect when ``wounds`` is False."""
    effect = _BY_SHIELD.get((weapon, shield)) or STRIKE_TABLE[(weapon, guarded(shield))]
    if effect == "wound" and regular_vs_regular and not wounds:
        return "none"
    return effect


def strike(a: Fighter, b: Fighter, wounds: bool) -> Strike:
    """``a`` strikes ``b`` once (FF-21). HP 0 is death; a kill sets HP to 0."""
    both_regular = not a.elite and not b.elite
    effect = strike_effect(a.weapon, b.shield, regular_vs_regular=both_regular, wounds=wounds)
    if effect == "none":
        hp = b.hp
    elif effect == "wound":
        hp = max(b.hp - 1, 0)
    else:
        hp = 0
    return Strike(a.seat, b.seat, a.weapon, effect, hp)


def duel(attacker: Fighter, defender: Fighter, wounds: bool) -> tuple[Strike, ...]:
    """FF-22: the attacker strikes first; a surviving defender strikes back once
    (also at a faction-mate, FF-24); then the duel ends."""
    first = strike(attacker, defender, wounds)
    if first.killed:
        return (first,)
    return (first, strike(defender, attacker, wounds))
