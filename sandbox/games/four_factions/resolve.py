"""Resolving a complete step into events: statements (FF-13..15, FF-29),
open-day speech (FF-17), loadouts (FF-5), half-nights (FF-19..22), pair
results (FF-26), dawn (FF-28) and the day limit (FF-27)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sandbox.core.events import Event
from sandbox.core.requests import Payload
from sandbox.games.four_factions import events as ev
from sandbox.games.four_factions.rules import FIRST_FIGHT_DAY, Fighter, Strike, duel, pair_name
from sandbox.games.four_factions.state import FFState


def resolve(state: FFState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    if state.phase == "day" and state.queue:
        yield from _statement(state, state.queue[0], answers.get(state.queue[0]))
        if not state.queue:
            yield _next_phase_after_day(state)
    elif state.stage == "loadout":
        yield from _loadouts(state, answers)
        yield ev.PhaseStarted(state.day, "night", "first_half")
    elif state.stage in ("first_half", "second_half"):
        yield from _half(state, answers)
    elif state.stage == "quiet":
        yield from _dawn_or_limit(state)
    else:  # setup, or a day whose speakers are all gone
        yield _next_phase_after_day(state)


def _next_phase_after_day(state: FFState) -> ev.PhaseStarted:
    # FF-16/17: nights 1-3 are quiet; fighting nights start with elite loadouts.
    stage = "loadout" if state.day >= FIRST_FIGHT_DAY else "quiet"
    return ev.PhaseStarted(state.day, "night", stage)


def day_stage(day: int) -> str:
    return {1: "proofs", 2: "accusation", 3: "protection"}.get(day, "open")


def _statement(state: FFState, seat: int, answer: Payload | None) -> Iterator[Event]:
    stage = state.stage
    if stage == "open":
        text = "" if answer is None else str(answer["speech"])
        yield ev.Spoke(seat, text) if text.strip() else ev.Passed(seat)
        return
    key = "am" if stage == "proofs" else "target"
    if answer is None or answer.get(key) is None:
        yield ev.NoStatement(seat, stage)  # FF-29: never an invented claim
    elif stage == "proofs":
        yield ev.ProofsGiven(seat, str(answer["am"]), str(answer["speech"]))
    elif stage == "accusation":
        target, faction = int(answer["target"]), str(answer["faction"])
        yield ev.AccusationMade(seat, target, faction, str(answer["speech"]))
    else:
        yield ev.ProtectionMade(seat, int(answer["target"]), str(answer["speech"]))


def _loadouts(state: FFState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    for seat in sorted(answers):
        answer = answers[seat]
        yield ev.LoadoutChosen(seat, state.day, str(answer["weapon"]), str(answer["shield"]))


def _half(state: FFState, answers: Mapping[int, Payload]) -> Iterator[Event]:
    half = 1 if state.stage == "first_half" else 2
    for attacker in sorted(answers):  # FF-20: ascending attacker seat
        target = answers[attacker].get("target")
        if target is not None and attacker in state.alive:
            yield from _attack(state, half, attacker, int(target))
    yield from _settle_pairs(state, half)
    if not state.undecided_pairs():
        yield from _dawn(state)  # the game ends now: announce the night's dead
    elif half == 1:
        yield ev.PhaseStarted(state.day, "night", "second_half")
    else:
        yield from _dawn_or_limit(state)


def _fighter(state: FFState, seat: int) -> Fighter:
    return Fighter(
        seat, state.elite[seat], state.weapon_tonight(seat), state.shield(seat), state.hp[seat]
    )


def _attack(state: FFState, half: int, attacker: int, target: int) -> Iterator[Event]:
    if target not in state.alive:
        yield ev.CorpseFound(attacker, state.day, half, target)  # FF-20
        return
    a, d = _fighter(state, attacker), _fighter(state, target)
    strikes = duel(a, d, state.config.wounds_between_regulars)
    record = tuple(_strike_json(s) for s in strikes)
    yield ev.DuelResolved(state.day, half, attacker, target, record)
    back = strikes[1].weapon if len(strikes) > 1 else None
    hp_a, hp_d = _hp_after(strikes, attacker, a.hp), _hp_after(strikes, target, d.hp)
    yield ev.AttackReport(
        attacker, state.day, half, target, a.weapon, back, _outcomes(strikes, attacker), hp_a
    )
    shown = attacker if state.config.defender_learns_attacker else None  # FF-12
    yield ev.DefenceReport(
        target, state.day, half, shown, a.weapon, _outcomes(strikes, target), hp_d
    )


def _strike_json(s: Strike) -> dict[str, Any]:
    return {
        "striker": s.striker,
        "struck": s.struck,
        "weapon": s.weapon,
        "effect": s.effect,
        "hp_after": s.hp_after,
    }


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


def _dawn(state: FFState) -> Iterator[Event]:
    """FF-28: the night's dead in seat order, so the order of death (which half,
    which duel first) stays secret; then FF-26: every pair settled tonight."""
    dead = tuple(sorted(state.night_deaths))
    reveal = state.config.reveal_faction_on_death  # FF-28 option
    factions = {str(s): state.faction[s] for s in dead} if reveal else {}
    yield ev.DawnReport(state.day + 1, dead, factions)
    for pair in state.unannounced_pairs():
        name = pair_name(pair)
        if name in state.settled_pairs:
            yield ev.PairDecided(name, state.settled_pairs[name], state.day)


def _dawn_or_limit(state: FFState) -> Iterator[Event]:
    if state.stage == "second_half":
        yield from _dawn(state)
    if state.day >= state.config.day_limit:
        yield ev.DayLimitReached(state.day)  # FF-27
        return
    day = state.day + 1
    yield ev.PhaseStarted(day, "day", day_stage(day))
