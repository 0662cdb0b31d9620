"""The frame of a reference bot that plays a ladder of levels (issue 37).

Level 0 is the variant's baseline; levels 1..4 keep a deduction
:class:`~sandbox.deduction.mind.Mind` on the variant's ladder (its bot's
``ladder``, the rates of its levels) and speak through a
:class:`~sandbox.deduction.talk.Talker`. A variant's bot names its variant,
role table and ladder, reads its view into the mind (``_think``) and prefers an answer
(``_choose``); the frame checks that answer and, when it is illegal after all,
asks for the referee's fallback, which is always legal.

Nothing here draws from the bot's generator, so a variant's bot may draw its
fixed style after this frame is built and still draw it first.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice
from sandbox.core.seat import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext
from sandbox.core.variant import SeatView
from sandbox.deduction.mind import Level, Mind, frozen_tag
from sandbox.deduction.tables import RoleTable
from sandbox.deduction.talk import Talker


class LadderBot(Agent):
    """A seeded reference bot; ``at_level`` moves it along its variant's ladder."""

    kind = "baseline"
    replayable = True
    variant: ClassVar[str]  # the frozen tag's variant
    table: ClassVar[RoleTable]
    ladder: ClassVar[Mapping[int, Level]]  # its levels 1..4 (each variant's own rates)

    def __init__(self, seed: int, language: str = "en", level: int = 0) -> None:
        self.rng = random.Random(seed)
        self.seed, self.language = seed, language
        self.at_level(level)

    def at_level(self, level: int) -> None:
        """Play at ``level`` (0: the baseline; 1..4: the ladder's, issue 37; a
        rung marked ``baseline`` plays the baseline's own heuristics)."""
        if level and level not in self.ladder:
            raise ValueError(f"level {level}: the levels are {sorted(self.ladder)}")
        self.level = level
        deduces = bool(level) and not self.ladder[level].baseline
        self.mind = Mind(self.table, level, self.seed, levels=self.ladder) if deduces else None
        self.team_play = bool(self.mind and self.mind.level.coordinates)  # fakes when it pays
        self.talker = Talker(self.mind, self.language, self.seed) if self.mind else None

    def describe(self) -> dict[str, Any]:
        if self.level:  # a rung that plays the baseline is still its level's reference
            return {
                "kind": self.kind,
                "level": self.level,
                "reference": frozen_tag(self.variant, self.level),
            }
        return {"kind": self.kind}

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self.mind is not None:
            self._think(self.mind, ctx.view)
        payload = self._choose(ctx)
        try:
            return AgentAnswer(ctx.validate(payload))
        except IllegalDecision:  # the referee's fallback is always legal
            return AgentAnswer(None, fallback_reason=FALLBACK_INVALID)

    @abstractmethod
    def _think(self, mind: Mind, view: SeatView) -> None:
        """Take what the seat's view tells into ``mind``."""

    @abstractmethod
    def _choose(self, ctx: DecisionContext) -> dict[str, Any]:
        """The answer the bot prefers to ``ctx``'s request."""


def seat_options(ctx: DecisionContext, name: str = "target") -> list[int]:
    """The seats a request's choice field ``name`` offers (no null, no flag)."""
    field = ctx.request.field(name)
    assert isinstance(field, Choice)
    return [o for o in field.options if isinstance(o, int) and not isinstance(o, bool)]
