"""The Four Factions variant (FF-1..FF-29): the plugin the referee drives.

Module map: rules.py (strike table FF-21, duel FF-22), config.py (rulings and
[[seat]] tables), setup.py (dealing, FF-8), events.py, state.py (the fold),
requests.py (decisions, checks, fallbacks), resolve.py (steps into events),
view.py (what a seat may know; its docstring lists every view field).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

from pydantic import BaseModel

from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import Outcome, SeatView, Variant, ViewFold
from sandbox.games.four_factions import events as ev
from sandbox.games.four_factions import requests as rq
from sandbox.games.four_factions.config import FourFactionsConfig
from sandbox.games.four_factions.describe import describe
from sandbox.games.four_factions.resolve import resolve
from sandbox.games.four_factions.rules import FACTIONS, PAIRS, SEATS, pair_name, shield_of
from sandbox.games.four_factions.rules_text import rules_text
from sandbox.games.four_factions.setup import deal
from sandbox.games.four_factions.state import FFState, apply_event
from sandbox.games.four_factions.view import build_view, view_fold

PAIRS_DECIDED = "pairs_decided"
DAY_LIMIT = "day_limit"

# The answer fields of each decision (see requests.py).
DECISION_FIELDS: Mapping[str, tuple[str, ...]] = {
    "proofs": ("am", "speech"),  # FF-13
    "accusation": ("target", "faction", "speech"),  # FF-14
    "protection": ("target", "speech"),  # FF-15
    "speak": ("speech",),  # FF-17
    "loadout": ("weapon", "shield"),  # FF-5
    "attack": ("target",),  # FF-19
}


def _cfg(config: BaseModel) -> FourFactionsConfig:
    assert isinstance(config, FourFactionsConfig)
    return config


class FourFactions(Variant[FFState]):
    name = "four_factions"
    title = "Four Factions"
    config_model = FourFactionsConfig

    def seat_count(self, config: BaseModel) -> int:
        return SEATS  # FF-1

    def initial_state(self, config: BaseModel) -> FFState:
        return FFState(_cfg(config))

    def setup(self, config: BaseModel, rng: random.Random) -> Iterator[Event]:
        cfg = _cfg(config)
        roles = deal(cfg.seat, cfg.weapon_assignment == "balanced", rng)  # FF-8
        for seat, (faction, elite, weapon) in roles.items():
            shield = None if weapon is None else shield_of(weapon)  # FF-6
            yield ev.RoleDealt(seat, faction, elite, weapon, shield, cfg.seat_hp(seat))
        elites = {f: s for s, (f, e, _) in roles.items() if e}
        for seat, (faction, elite, _) in roles.items():
            if elite:
                yield ev.EliteKnowledge(seat, _known_regulars(cfg, roles, faction))  # FF-9
            else:
                yield ev.EliteKnown(seat, elites[faction])  # FF-10
        yield ev.PhaseStarted(1, "day", "proofs")

    def apply(self, state: FFState, event: Event) -> None:
        apply_event(state, event)

    def open_requests(self, state: FFState, step: int) -> tuple[DecisionRequest, ...]:
        return rq.open_requests(state, step)

    def check(self, state: FFState, request: DecisionRequest, payload: Payload) -> None:
        rq.check(state, request, payload)

    def fallback(self, state: FFState, request: DecisionRequest) -> Payload:
        return rq.fallback(state, request)

    def resolve(
        self, state: FFState, answers: Mapping[int, Payload], rng: random.Random
    ) -> Iterator[Event]:
        return resolve(state, answers)

    def outcome(self, state: FFState) -> Outcome | None:
        # FF-27: only announced results count, so the game ends at dawn (FF-26 ruling)
        undecided = state.unannounced_pairs()
        if undecided and not state.limit_reached:
            return None
        by_faction: dict[str, str] = {}
        for result in state.pair_results.values():
            by_faction.update(result)
        for pair in undecided:  # FF-27: draw by limit
            by_faction.update({f: "draw" for f in pair})
        results = {s: by_faction[f] for s, f in sorted(state.faction.items())}
        reason = DAY_LIMIT if undecided else PAIRS_DECIDED
        return Outcome(reason, results, _summary(state, by_faction, undecided))

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        return build_view(seat, events)

    def view_fold(self, seat: int) -> ViewFold:
        return view_fold(seat)

    def roles(self, state: FFState) -> Mapping[int, str]:
        return {
            s: f"{f}/{'elite' if state.elite[s] else 'regular'}"
            for s, f in sorted(state.faction.items())
        }

    def role_labels(self, config: BaseModel) -> tuple[str, ...]:
        # the same "faction/rank" labels as roles() (FF-2, FF-3)
        return tuple(f"{f}/{rank}" for f in FACTIONS for rank in ("elite", "regular"))

    def decision_fields(self, config: BaseModel) -> Mapping[str, tuple[str, ...]]:
        return DECISION_FIELDS

    def rules_text(self, config: BaseModel, language: str = "en") -> str:
        return rules_text(_cfg(config), language)

    def describe_event(self, event: Event) -> str:
        return describe(event) or super().describe_event(event)


def _known_regulars(
    cfg: FourFactionsConfig, roles: Mapping[int, tuple[str, bool, str | None]], faction: str
) -> dict[str, str]:
    own_only = cfg.elite_knowledge == "own_faction"
    return {
        str(s): f
        for s, (f, elite, _) in sorted(roles.items())
        if not elite and (not own_only or f == faction)
    }


def _summary(state: FFState, by_faction: dict[str, str], undecided: list[tuple[str, str]]) -> str:
    parts = []
    for x, y in PAIRS:
        name = pair_name((x, y))
        how = " (day limit)" if (x, y) in undecided else ""
        parts.append(f"{name}: {x} {by_faction[x]}, {y} {by_faction[y]}{how}")
    end = f"Day limit {state.config.day_limit} reached" if undecided else "Both pairs decided"
    return f"{end} on day {state.day}. " + "; ".join(parts) + "."


__all__ = ["DAY_LIMIT", "FACTIONS", "PAIRS_DECIDED", "FourFactions"]
