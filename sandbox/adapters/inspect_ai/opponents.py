"""The opponent pool: who plays the seats the evaluated model does not.

A pool is a list of entries (``-T opponents=baseline,random`` on inspect's
command line), dealt to the other seats in seat order, round robin:

- ``baseline`` (the default): the variant's baseline bot; ``random``: a seat
  uniform over the legal options;
- ``fake``: the built-in fake model answering legally (``fake/legal-random``);
  ``fake/<policy>``: another of its policies;
- ``inspect:<model>``: an inspect model string (``inspect:openai/gpt-4o``), its
  calls through inspect like the evaluated seat's;
- anything else: a model string for an ``llm`` seat (litellm, e.g.
  ``openai/gpt-4o``; its key variable must be set).

Every seat's agent is built the way a game file builds it, from the same specs
(``sandbox.session.gamefile``), seeded per seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.model import get_model

import sandbox.core.seat as contract
from sandbox.adapters.inspect_ai.agent import KIND, InspectAgent
from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.errors import ConfigError
from sandbox.core.seat import Agent, AgentSetupError, seat_seed
from sandbox.games.registry import get_variant
from sandbox.session.agent_specs import BaselineSpec, LLMSpec, RandomSpec

DEFAULT_POOL = ("baseline",)
FAKE = "fake"
FAKE_LEGAL = "fake/legal-random"
INSPECT_PREFIX = f"{KIND}:"


@dataclass(frozen=True)
class Opponent:
    """One pool entry: a bot kind, an llm seat's model, or an inspect model."""

    entry: str

    @property
    def label(self) -> str:
        return self.entry

    def build(self, seat: int, game_seed: int, settings: LLMSettings) -> Agent:
        """This entry's agent for ``seat`` (not attached: the game seats it)."""
        seed = seat_seed(game_seed, seat)
        if self.entry == "baseline":
            return BaselineSpec(kind="baseline").build(seat, seed, settings)
        if self.entry == "random":
            return RandomSpec(kind="random").build(seat, seed, settings)
        if self.entry.startswith(INSPECT_PREFIX):
            model = get_model(self.entry[len(INSPECT_PREFIX) :])
            return InspectAgent(model, settings=settings)
        model_name = FAKE_LEGAL if self.entry == FAKE else self.entry
        return LLMSpec(kind="llm", model=model_name).build(seat, seed, settings)


def parse_pool(raw: str | Sequence[str] | None) -> tuple[Opponent, ...]:
    """The pool from a task argument: a comma-separated string or a list
    (inspect's ``-T a,b`` gives a list); empty entries are refused."""
    if raw is None:
        entries: list[str] = list(DEFAULT_POOL)
    elif isinstance(raw, str):
        entries = [part.strip() for part in raw.split(",")]
    else:
        entries = [str(part).strip() for part in raw]
    if not entries or any(not e for e in entries):
        raise ConfigError(f"opponents: an empty entry in {raw!r}")
    if any(e == INSPECT_PREFIX for e in entries):
        raise ConfigError(f"opponents: {INSPECT_PREFIX!r} needs a model (inspect:openai/gpt-4o)")
    return tuple(Opponent(e) for e in entries)


def check_pool(pool: Sequence[Opponent], settings: LLMSettings, variant: str) -> None:
    """Build and seat each entry once (no model is contacted), so a typo, an
    unset key or a variant without a baseline bot stops the task before any
    sample runs; a ConfigError names the entry."""
    for opponent in pool:
        try:
            opponent.build(0, 0, settings).attach(contract.Seating(0, 0, get_variant(variant)))
        except AgentSetupError as err:
            raise ConfigError(f"opponents: {opponent.entry}: {err}") from None


@dataclass(frozen=True)
class Seating:
    """Who plays each opponent seat of one game: pool entries, round robin."""

    pool: tuple[Opponent, ...]

    def entry_for(self, index: int) -> Opponent:
        """The entry of the ``index``-th opponent seat (in seat order)."""
        return self.pool[index % len(self.pool)]

    def agents(
        self, seats: Sequence[int], game_seed: int, settings: LLMSettings
    ) -> dict[int, Agent]:
        """Each of ``seats`` (the opponent seats) with its entry's agent."""
        return {
            seat: self.entry_for(i).build(seat, game_seed, settings)
            for i, seat in enumerate(sorted(seats))
        }

    def labels(self, seats: Sequence[int]) -> dict[int, str]:
        return {seat: self.entry_for(i).label for i, seat in enumerate(sorted(seats))}
