"""One-line, referee-voice descriptions of Four Factions events (logs, the referee's view).
Player speech is quoted as data, never merged into the referee's sentence."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import sandbox.games.four_factions.events as ev
from sandbox.core.events import Event


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _outcomes(outcomes: tuple[Mapping[str, Any], ...]) -> str:
    return "; ".join(
        f"{o['by']} struck with {o['weapon']}: {o['effect']}{' (died)' if o['died'] else ''}"
        for o in outcomes
    )


def _results(results: Mapping[str, str]) -> str:
    return ", ".join(f"{f} {r}" for f, r in results.items())


_DESCRIBERS: dict[type[Event], Callable[[Any], str]] = {
    ev.RoleDealt: lambda e: (
        f"Seat {e.seat} is {e.faction} {'elite' if e.elite else 'regular'}"
        + (f" with {e.weapon} and {e.shield}" if e.weapon else "")
        + f", max HP {e.max_hp}."
    ),
    ev.EliteKnowledge: lambda e: (
        f"Seat {e.seat} (elite) learns regulars' factions: "
        + ", ".join(f"{k}={v}" for k, v in e.regulars.items())
        + "."
    ),
    ev.EliteKnown: lambda e: f"Seat {e.seat} learns its elite is seat {e.elite_seat}.",
    ev.PhaseStarted: lambda e: f"{e.phase.capitalize()} {e.day} begins ({e.stage}).",
    ev.ProofsGiven: lambda e: f"Seat {e.seat} claims to be {e.am} and says: {_q(e.speech)}",
    ev.AccusationMade: lambda e: (
        f"Seat {e.seat} accuses seat {e.target} of being {e.faction} and says: {_q(e.speech)}"
    ),
    ev.ProtectionMade: lambda e: f"Seat {e.seat} protects seat {e.target} and says: {_q(e.speech)}",
    ev.NoStatement: lambda e: f"Seat {e.seat} gave no {e.stage} statement (FF-29).",
    ev.Spoke: lambda e: f"Seat {e.seat} says: {_q(e.speech)}",
    ev.Passed: lambda e: f"Seat {e.seat} passes.",
    ev.LoadoutChosen: lambda e: f"Seat {e.seat} takes {e.weapon} and {e.shield} for night {e.day}.",
    ev.DuelResolved: lambda e: (
        f"Night {e.day} half {e.half}: seat {e.attacker} attacks seat {e.defender}: "
        + "; ".join(
            f"{s['striker']} strikes {s['struck']} with {s['weapon']}: {s['effect']}, "
            f"HP {s['hp_after']}"
            for s in e.strikes
        )
        + "."
    ),
    ev.AttackReport: lambda e: (
        f"Seat {e.seat} learns of its attack on seat {e.target}: {_outcomes(e.outcomes)}."
    ),
    ev.DefenceReport: lambda e: (
        f"Seat {e.seat} learns it was attacked"
        + (f" by seat {e.attacker}" if e.attacker is not None else "")
        + f" with {e.struck_with}: {_outcomes(e.outcomes)}."
    ),
    ev.CorpseFound: lambda e: f"Seat {e.seat} finds seat {e.target} already dead (FF-20).",
    ev.PairSettled: lambda e: (
        f"Pair {e.pair} is settled after night {e.day} half {e.half} (announced at dawn): "
        + _results(e.results)
        + "."
    ),
    ev.PairDecided: lambda e: f"Pair {e.pair} is decided: {_results(e.results)}.",
    # Named after the night that ended: after the last night there is no next day (FF-27).
    ev.DawnReport: lambda e: (
        f"Dawn after night {e.day - 1}: "
        + (", ".join(f"seat {s}" for s in e.dead) + " died" if e.dead else "nobody died")
        + (" (" + ", ".join(f"{k}={v}" for k, v in e.factions.items()) + ")" if e.factions else "")
        + "."
    ),
    ev.DayLimitReached: lambda e: f"The day limit is reached after day {e.day} (FF-27).",
}


def describe(event: Event) -> str | None:
    describer = _DESCRIBERS.get(type(event))
    return None if describer is None else describer(event)
