"""Tiny game's baseline bot: a reference opponent deciding from its own view only.

Everyone says "I am a hen." A hen votes for a seat that passed instead of
speaking when there is one, else at random; the fox votes for any other seat
(they are all hens). The bot's code is imported only when a seat plays it
(``TinyGame.baseline_bot``), never with the engine.
"""

from __future__ import annotations

import random
from typing import Any

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice
from sandbox.core.seat import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext
from tinygame.info import FOX


class BaselineBot(Agent):
    kind = "baseline"
    replayable = True  # its answers depend only on its seed and on what it is asked

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        try:
            return AgentAnswer(ctx.validate(self._choose(ctx)))
        except IllegalDecision:  # never expected; the referee's fallback is always legal
            return AgentAnswer(None, fallback_reason=FALLBACK_INVALID)

    def _choose(self, ctx: DecisionContext) -> dict[str, Any]:
        if ctx.request.decision == "speech":
            return {"speech": "I am a hen."}
        field = ctx.request.field("target")
        assert isinstance(field, Choice)
        options = [int(s) for s in field.options if s is not None]
        if ctx.view.private.get("role") == FOX:
            return {"target": self.rng.choice(options)}
        passed = {h.speaker for h in ctx.view.history if h.kind == "tinygame.speech"
                  and h.speaker in options and not (h.speech or "").strip()}  # fmt: skip
        return {"target": self.rng.choice(sorted(passed) or options)}
