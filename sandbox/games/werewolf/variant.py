"""The Werewolf variant: wires its modules into the engine's Variant contract.

Module map (as in every variant): info.py (name, seats, roles, decisions, the
enums), config.py (rulings, presets), events.py, state.py (the fold), requests.py
(open decisions, checks, fallbacks), resolve.py (the deal, WW-2; steps into
events, soften.py for WW-13; endings and results), view.py
(what a seat may know), words.py (every event in words, the board; its game words
in vocabulary.py), rules_text.py (the rules with the rulings); bot.py (the
baseline bot) and metrics.py (behaviour metrics) are imported only when asked for.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import sandbox.games.werewolf.requests as requests
import sandbox.games.werewolf.resolve as resolve
import sandbox.games.werewolf.rules_text as rules_text
import sandbox.games.werewolf.view as view
import sandbox.games.werewolf.words as wording
from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload
from sandbox.core.variant import Research, Rules, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.werewolf.config import WerewolfConfig
from sandbox.games.werewolf.info import INFO, ROLES, team_of
from sandbox.games.werewolf.state import WerewolfState, fold


class WerewolfRules(Rules[WerewolfState, WerewolfConfig]):
    # Called after every event or answer: the module functions themselves.
    apply = staticmethod(fold)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(resolve.outcome)
    setup = staticmethod(resolve.setup_events)

    def seat_count(self, config: WerewolfConfig) -> int:
        return config.players

    def initial_state(self, config: WerewolfConfig) -> WerewolfState:
        return WerewolfState()  # the rulings arrive in the public GameStarted event

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

    def roles(self, state: WerewolfState) -> Mapping[int, str]:
        return dict(state.roles)


class WerewolfResearch(Research):
    def side_of(self, role: str) -> str:
        return team_of(role)  # WW-3

    def belief_labels(self) -> tuple[str, ...]:
        """The roles, not the two teams: a werewolf hunting the seer and a
        villager weighing a seer's claim are the findings (the analysis scores
        a guess against the target's role)."""
        return ROLES

    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """WW-4: a werewolf knows the pack."""
        return {int(s) for s in private.get("fellow_werewolves") or ()}


class Werewolf(Variant[WerewolfState, WerewolfConfig]):
    info = INFO
    config_model = WerewolfConfig
    rules = WerewolfRules()
    research = WerewolfResearch(
        INFO,
        bot="sandbox.games.werewolf.bot:BaselineBot",
        metrics="sandbox.games.werewolf.metrics:METRICS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return view.ViewFold(self, seat)

    def rules_text(self, config: WerewolfConfig, language: str = "en") -> str:
        return rules_text.rules_text(config, language)

    def words(self) -> VariantWords:
        return wording.WORDS
