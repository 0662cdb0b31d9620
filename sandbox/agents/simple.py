"""Seats that need no model: uniform random, and scripted (for scenarios and tests)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import draw_payload
from sandbox.core.seat import (
    FALLBACK_EXHAUSTED,
    FALLBACK_INVALID,
    FALLBACK_UNLISTED,
    Agent,
    AgentAnswer,
    DecisionContext,
    Seating,
    seat_seed,
)

RANDOM_TRIES = 64


class RandomAgent(Agent):
    """Uniform over the legal options, seeded per seat; lists over the same options
    are drawn disjoint (``draw_payload``). Redraws until the referee accepts (some
    rules tie fields together); falls back after RANDOM_TRIES."""

    kind = "random"
    replayable = True

    def __init__(self, seed: int | None = None) -> None:
        """``seed=None``: seeded from the game's seed and the seat when seated."""
        self.seed = seed
        self.rng = random.Random(seed)

    def attach(self, seating: Seating) -> None:
        if self.seed is None:
            self.rng = random.Random(seat_seed(seating.game_seed, seating.seat))

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        for _ in range(RANDOM_TRIES):
            payload = draw_payload(ctx.request, self.rng, disjoint=True)
            try:
                return AgentAnswer(ctx.validate(payload))
            except IllegalDecision:
                continue
        return AgentAnswer(None, fallback_reason=FALLBACK_INVALID)


class ScriptError(Exception):
    """A scripted decision that the referee rejected (a broken scenario)."""


class ScriptedAgent(Agent):
    """Plays the listed decisions in order, one per request.

    An entry may name the decision it answers (``"decision": "vote"``); a
    mismatch is a scenario error, unless ``skip_unlisted`` is set: then the
    request gets the referee's fallback (reason FALLBACK_UNLISTED) and the entry
    waits for its decision
    (handy for scenarios that only care about, say, night 4). When the list
    runs out the seat continues as ``then``: ``"fallback"`` (the referee's
    documented fallback, the default)
    or ``"random"``. An illegal entry raises :class:`ScriptError`, naming the
    seat, the entry and the referee's reason, so broken scenarios fail loudly.
    """

    kind = "scripted"
    replayable = True

    def __init__(
        self,
        decisions: Sequence[Mapping[str, Any]],
        then: Literal["fallback", "random"] = "fallback",
        seed: int | None = None,
        skip_unlisted: bool = False,
    ) -> None:
        self.queue = list(decisions)
        self.then = then
        self.skip_unlisted = skip_unlisted
        self.used = 0
        self.random = RandomAgent(seed)

    def attach(self, seating: Seating) -> None:
        self.random.attach(seating)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "decisions": len(self.queue), "then": self.then}

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self.used >= len(self.queue):
            if self.then == "random":
                return await self.random.decide(ctx)
            return AgentAnswer(None, fallback_reason=FALLBACK_EXHAUSTED)
        entry = dict(self.queue[self.used])
        wanted = entry.pop("decision", None)
        if self.skip_unlisted and wanted is not None and wanted != ctx.request.decision:
            return AgentAnswer(None, fallback_reason=FALLBACK_UNLISTED)
        self.used += 1
        where = f"seat {ctx.seat}, scripted decision #{self.used}"
        if wanted is not None and wanted != ctx.request.decision:
            raise ScriptError(
                f"{where}: expected '{wanted}' but the referee asks for "
                f"'{ctx.request.decision}' ({ctx.request.instruction})"
            )
        note = str(entry.pop("note", ""))
        try:
            return AgentAnswer(ctx.validate(entry), note=note)
        except IllegalDecision as err:
            raise ScriptError(f"{where} ({ctx.request.decision}): {err}") from None
