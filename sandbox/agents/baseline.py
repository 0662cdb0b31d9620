"""The baseline bot of whichever variant the seat plays (a reference opponent)."""

from __future__ import annotations

from typing import Any

from sandbox.agents import open_talk
from sandbox.core.seat import (
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
    Seating,
    seat_seed,
)
from sandbox.core.variant import Variant


class BaselineAgent(Agent):
    """Plays the variant's own baseline bot (``Variant.research.baseline_bot``), chosen
    when the agent is seated. ``seed=None`` derives the bot's seed from the
    game's seed and the seat, exactly as a game file's ``kind = "baseline"`` does."""

    kind = "baseline"
    replayable = True

    def __init__(self, seed: int | None = None, language: str = "en") -> None:
        self.seed = seed
        self.language = language
        self._bot: Agent | None = None

    def attach(self, seating: Seating) -> None:
        seed = seat_seed(seating.game_seed, seating.seat) if self.seed is None else self.seed
        self._bot = baseline_bot(seating.variant, seed, self.language)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self._bot is None:
            raise AgentSetupError("BaselineAgent was not seated (attach) before its first decision")
        return await self._bot.decide(ctx)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


def baseline_bot(variant: Variant[Any, Any], seed: int, language: str = "en") -> Agent:
    """A new baseline bot of ``variant`` speaking ``language``
    (``Variant.research.baseline_bot``, which imports the bot's code only when a seat plays it)."""
    bot = baseline_bot_or_none(variant, seed, language)
    if bot is None:
        raise AgentSetupError(f"no baseline bot for variant {variant.name!r}")
    return bot


def baseline_bot_or_none(
    variant: Variant[Any, Any], seed: int, language: str = "en"
) -> Agent | None:
    """``variant``'s baseline bot seeded with ``seed``, or None when it has none;
    it answers an open day's asks (OD-5) by :mod:`sandbox.agents.open_talk`."""
    bot = variant.research.baseline_bot(seed, language)
    if bot is None:
        return None
    if not isinstance(bot, Agent):
        raise AgentSetupError(f"{variant.name}'s baseline_bot gave {bot!r}, not an Agent")
    return open_talk.OpenDayTalk(bot)
