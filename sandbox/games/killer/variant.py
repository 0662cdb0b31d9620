"""The Killer variant: wires config, setup, the fold, the referee rules and the
views into the engine's Variant contract."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

from pydantic import BaseModel

from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import Outcome, SeatView, Variant, ViewFold
from sandbox.games.killer import rules, text, view
from sandbox.games.killer.config import CIVILIAN, KILLER, POLICE, KillerConfig, lineup
from sandbox.games.killer.events import GameStarted, NightFell, RoleCard, TeamList
from sandbox.games.killer.state import KillerState, fold

SUMMARIES = {
    "killers_eliminated": "All killers are dead: the police and the civilians win (KG-12).",
    "police_eliminated": "All police are dead: the killers win (KG-12).",
    "civilians_eliminated": "All civilians are dead: a draw (KG-12).",
    "forced_draw": "The vote stayed tied after two revotes: a forced draw (KG-10).",
    "day_limit": "The day limit passed without an end: a draw by limit (KG-12 ruling).",
}

# The answer fields of each decision (see rules.py); 'concede' only when KG-13 allows it.
DECISION_FIELDS: Mapping[str, tuple[str, ...]] = {
    rules.KILL: ("target",),  # KG-3
    rules.SUSPECT: ("suspect",),  # KG-4
    rules.LAST: ("speech",),  # KG-6
    rules.SPEAK: ("speech", "concede"),  # KG-8, KG-13
    rules.BALLOT: ("target",),  # KG-9, KG-10
}


def _config(config: BaseModel) -> KillerConfig:
    assert isinstance(config, KillerConfig)
    return config


def deal(config: KillerConfig, rng: random.Random) -> dict[int, str]:
    """KG-2: fixed [[seat]] roles first, the remaining cards shuffled over the other seats."""
    roles = {fix.seat: str(fix.role) for fix in config.seat}
    deck: list[str] = []
    for role, count in lineup(config.players).items():
        deck += [role] * (count - sum(1 for r in roles.values() if r == role))
    rng.shuffle(deck)
    free = [s for s in range(1, config.players + 1) if s not in roles]
    roles.update(zip(free, deck, strict=True))
    return dict(sorted(roles.items()))


class Killer(Variant[KillerState]):
    name = "killer"
    title = "Killer (police, killers and civilians)"
    config_model = KillerConfig

    def seat_count(self, config: BaseModel) -> int:
        return _config(config).players

    def initial_state(self, config: BaseModel) -> KillerState:
        return KillerState()

    def setup(self, config: BaseModel, rng: random.Random) -> Iterator[Event]:
        cfg = _config(config)
        counts = lineup(cfg.players)
        yield GameStarted(
            cfg.players,
            counts[KILLER],
            counts[POLICE],
            counts[KILLER],  # KG-7: the quota equals the number of killers at the start
            cfg.day_limit,
            cfg.check_answer,
            cfg.reveal_role_on_death,
            cfg.previous_first_victim,
            cfg.concede,
        )
        roles = deal(cfg, rng)
        for seat, role in roles.items():
            yield RoleCard(seat, role)
        for team in (KILLER, POLICE):
            yield TeamList(team, tuple(s for s, r in roles.items() if r == team))
        yield NightFell(1)  # KG-11: the game starts with night 1

    def apply(self, state: KillerState, event: Event) -> None:
        fold(state, event)

    def open_requests(self, state: KillerState, step: int) -> tuple[DecisionRequest, ...]:
        return rules.open_requests(state, step)

    def check(self, state: KillerState, request: DecisionRequest, payload: Payload) -> None:
        rules.check(state, request, payload)

    def fallback(self, state: KillerState, request: DecisionRequest) -> Payload:
        return rules.fallback(request)

    def resolve(
        self, state: KillerState, answers: Mapping[int, Payload], rng: random.Random
    ) -> Iterator[Event]:
        return rules.resolve(state, answers, rng)

    def outcome(self, state: KillerState) -> Outcome | None:
        reason = rules.end_reason(state)
        if reason is None:
            return None
        side = rules.winner(state, reason)
        results = {seat: _result(role, side) for seat, role in state.roles.items()}
        return Outcome(reason, results, self._summary(state, reason))

    def _summary(self, state: KillerState, reason: str) -> str:
        if reason == "surrender":
            loser = state.conceded_side
            return f"The {loser} side conceded and loses (KG-13)."
        return SUMMARIES[reason]

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        return view.build_view(self.name, seat, events)

    def view_fold(self, seat: int) -> ViewFold:
        return view.ViewFold(self.name, seat)

    def roles(self, state: KillerState) -> Mapping[int, str]:
        return dict(state.roles)

    def role_labels(self, config: BaseModel) -> tuple[str, ...]:
        return (KILLER, POLICE, CIVILIAN)  # KG-1

    def decision_fields(self, config: BaseModel) -> Mapping[str, tuple[str, ...]]:
        return DECISION_FIELDS

    def rules_text(self, config: BaseModel, language: str = "en") -> str:
        return text.rules_text(_config(config), language)

    def describe_event(self, event: Event) -> str:
        return text.describe(event) or super().describe_event(event)

    def next_in_series(self, config: BaseModel, finished_state: KillerState) -> BaseModel:
        """KG-5: the next game bars this game's first-night victim on its night 1."""
        return _config(config).model_copy(
            update={"previous_first_victim": finished_state.first_night_victim}
        )


def _result(role: str, winning_side: str | None) -> str:
    if winning_side is None:
        return "draw"
    side = POLICE if role == CIVILIAN else role  # civilians share the police's result
    return "win" if side == winning_side else "lose"
