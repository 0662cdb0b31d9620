"""The baseline bot of whichever variant the seat plays (a reference opponent)."""

from __future__ import annotations

import importlib
from typing import Any

from sandbox.agents.base import Agent, AgentAnswer, AgentSetupError, DecisionContext, seat_seed


class BaselineAgent(Agent):
    """Plays the variant's own baseline bot (``sandbox.games.<variant>.bot``),
    chosen when the agent is seated. ``seed=None`` derives the bot's seed from the
    game's seed and the seat, exactly as a game file's ``kind = "baseline"`` does."""

    kind = "baseline"
    replayable = True

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._bot: Agent | None = None

    def attach(self, seat: int, game_seed: int, variant: str) -> None:
        seed = seat_seed(game_seed, seat) if self.seed is None else self.seed
        self._bot = baseline_bot(variant, seed)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self._bot is None:
            raise AgentSetupError("BaselineAgent was not seated (attach) before its first decision")
        return await self._bot.decide(ctx)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


def baseline_bot(variant: str, seed: int) -> Agent:
    """The variant's bot class, looked up by module name so that a variant's bot
    is only imported when a seat plays it."""
    try:
        module = importlib.import_module(f"sandbox.games.{variant}.bot")
    except ModuleNotFoundError:
        raise AgentSetupError(f"no baseline bot for variant {variant!r}") from None
    bot: Agent = module.BaselineBot(seed)
    return bot
