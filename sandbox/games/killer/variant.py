"""The Killer variant: wires its modules into the engine's Variant contract.

Module map (the same in every variant): info.py (name, seats, roles, decisions,
the enums), config.py (rulings), events.py, state.py (the fold), requests.py
(open decisions, checks, fallbacks), resolve.py (the deal, KG-2; steps into
events; endings and results), view.py (what a seat may know),
words.py (every event in words, the log lines, the board), rules_text.py (the
rules with the rulings); bot.py (the baseline bot) and metrics.py (behaviour
metrics) are imported only when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import sandbox.games.killer.requests as requests
import sandbox.games.killer.resolve as resolve
import sandbox.games.killer.rules_text as rules_text
import sandbox.games.killer.view as view
import sandbox.games.killer.words as wording
from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import Research, Rules, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.killer.config import KillerConfig
from sandbox.games.killer.info import INFO
from sandbox.games.killer.state import KillerState, fold


class KillerRules(Rules[KillerState, KillerConfig]):
    # The referee calls these after every event or answer: the module functions
    # themselves, not methods that only pass their arguments on (one call less).
    apply = staticmethod(fold)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(resolve.outcome)
    setup = staticmethod(resolve.setup_events)

    def seat_count(self, config: KillerConfig) -> int:
        return config.players

    def initial_state(self, config: KillerConfig) -> KillerState:
        return KillerState()  # the rulings arrive in the public GameStarted event

    def fallback(self, state: KillerState, request: DecisionRequest) -> Payload:
        return requests.fallback(request)

    def resolve(
        self,
        state: KillerState,
        config: KillerConfig,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        return resolve.resolve(state, answers, rng)

    def roles(self, state: KillerState) -> Mapping[int, str]:
        return dict(state.roles)

    def next_in_series(self, config: KillerConfig, finished_state: KillerState) -> KillerConfig:
        """KG-5: the next game bars this game's first-night victim on its night 1."""
        return config.model_copy(
            update={"previous_first_victim": finished_state.first_night_victim}
        )


class KillerResearch(Research):
    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """KG-2: killers know each other, police know each other."""
        mates = private.get("fellow_killers") or private.get("fellow_police") or []
        return {int(s) for s in mates}


class Killer(Variant[KillerState, KillerConfig]):
    info = INFO
    config_model = KillerConfig
    rules = KillerRules()
    research = KillerResearch(
        INFO,
        bot="sandbox.games.killer.bot:BaselineBot",
        metrics="sandbox.games.killer.metrics:METRICS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return view.ViewFold(self, seat)

    def rules_text(self, config: KillerConfig, language: str = "en") -> str:
        return rules_text.rules_text(config, language)

    def describe_event(self, event: Event) -> str:
        return wording.describe(event) or super().describe_event(event)

    def words(self) -> VariantWords:
        return wording.WORDS
