"""The Four Factions variant (FF-1..FF-29): wires its modules into the engine's
Variant contract.

Module map (the same in every variant): info.py (name, seats, factions, pairs,
decisions, the enums), config.py (rulings and [[seat]] tables), events.py,
state.py (the fold), requests.py (decisions, checks, fallbacks), resolve.py (the
deal, FF-8; steps into events; endings and results),
view.py (what a seat may know; its docstring lists every view field), words.py
(every event in words, the log lines, the card's duel table, the board),
rules_text.py (the rules with the rulings); strikes.py, the strike table
(FF-21) and the duel (FF-22); bot.py (the baseline bot) and metrics.py
(behaviour metrics), imported only when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import sandbox.games.four_factions.requests as requests
import sandbox.games.four_factions.resolve as resolve
import sandbox.games.four_factions.rules_text as rules_text
import sandbox.games.four_factions.view as view
import sandbox.games.four_factions.words as wording
from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import Research, Rules, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.four_factions.config import FourFactionsConfig
from sandbox.games.four_factions.info import INFO, SEATS, role_label
from sandbox.games.four_factions.state import FFState, apply_event


class FourFactionsRules(Rules[FFState, FourFactionsConfig]):
    # The referee calls these after every event or answer: the module functions
    # themselves, not methods that only pass their arguments on (one call less).
    apply = staticmethod(apply_event)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(resolve.outcome)
    setup = staticmethod(resolve.setup_events)

    def seat_count(self, config: FourFactionsConfig) -> int:
        return SEATS  # FF-1

    def initial_state(self, config: FourFactionsConfig) -> FFState:
        return FFState()

    def fallback(self, state: FFState, request: DecisionRequest) -> Payload:
        return requests.fallback(state, request)

    def resolve(
        self,
        state: FFState,
        config: FourFactionsConfig,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        return resolve.resolve(state, config, answers)

    def roles(self, state: FFState) -> Mapping[int, str]:
        return {s: role_label(f, state.elite[s]) for s, f in sorted(state.faction.items())}


class FourFactionsResearch(Research):
    def side_of(self, role: str) -> str:
        return role.split("/")[0]  # "wolves/elite" plays for the wolves (FF-2)

    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """FF-9: an elite is told the regulars' factions; FF-10: a regular knows its elite."""
        known = {int(s) for s in (private.get("known_factions") or {})}
        elite = private.get("my_elite")
        return known | ({int(elite)} if elite is not None else set())


class FourFactions(Variant[FFState, FourFactionsConfig]):
    info = INFO
    config_model = FourFactionsConfig
    rules = FourFactionsRules()
    research = FourFactionsResearch(
        INFO,
        bot="sandbox.games.four_factions.bot:BaselineBot",
        metrics="sandbox.games.four_factions.metrics:METRICS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return view.view_fold(self, seat)

    def rules_text(self, config: FourFactionsConfig, language: str = "en") -> str:
        return rules_text.rules_text(config, language)

    def describe_event(self, event: Event) -> str:
        return wording.describe(event) or super().describe_event(event)

    def words(self) -> VariantWords:
        return wording.WORDS
