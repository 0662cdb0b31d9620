"""The Werewolf variant: wires its modules into the engine's Variant contract.

Module map (as in every variant): info.py (name, seats, roles, decisions, the
enums), config.py (rulings, presets), setup.py (dealing, WW-2), events.py,
state.py (the fold), requests.py (open decisions, checks, fallbacks), resolve.py
(steps into events; soften.py for WW-13), outcome.py (endings, results), view.py
(what a seat may know), text.py (event descriptions), rules_text.py (the rules
with the rulings). bot.py and words.py are not imported here: the engine stays
free of agents and renderers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

import sandbox.games.werewolf.outcome as outcome
import sandbox.games.werewolf.requests as requests
import sandbox.games.werewolf.resolve as resolve
import sandbox.games.werewolf.rules_text as rules_text
import sandbox.games.werewolf.setup as setup
import sandbox.games.werewolf.text as text
import sandbox.games.werewolf.view as view
from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import SeatView, Variant, ViewFold
from sandbox.games.werewolf.config import WerewolfConfig
from sandbox.games.werewolf.info import INFO, team_of
from sandbox.games.werewolf.state import WerewolfState, fold


class Werewolf(Variant[WerewolfState, WerewolfConfig]):
    info = INFO
    config_model = WerewolfConfig
    # Called after every event or answer: the module functions themselves.
    apply = staticmethod(fold)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(outcome.outcome)

    def seat_count(self, config: WerewolfConfig) -> int:
        return config.players

    def initial_state(self, config: WerewolfConfig) -> WerewolfState:
        return WerewolfState()  # the rulings arrive in the public GameStarted event

    def setup(self, config: WerewolfConfig, rng: random.Random) -> Iterator[Event]:
        return setup.setup_events(config, rng)

    def fallback(self, state: WerewolfState, request: DecisionRequest) -> Payload:
        return requests.fallback(request)

    def resolve(
        self,
        state: WerewolfState,
        config: WerewolfConfig,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        return resolve.resolve(state, answers, rng)

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        return view.build_view(self.name, seat, events)

    def view_fold(self, seat: int) -> ViewFold:
        return view.ViewFold(self.name, seat)

    def roles(self, state: WerewolfState) -> Mapping[int, str]:
        return dict(state.roles)

    def side_of(self, role: str) -> str:
        return team_of(role)  # WW-3

    def rules_text(self, config: WerewolfConfig, language: str = "en") -> str:
        return rules_text.rules_text(config, language)

    def describe_event(self, event: Event) -> str:
        return text.describe(event) or super().describe_event(event)
