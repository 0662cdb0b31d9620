"""The abort rule counting one seat (issue 41 item 4): an evaluation of one seat
stops a game its seat cannot play, even when the table as a whole stays under
the share; counted over every seat, the same game plays on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sandbox.agents.simple import RandomAgent
from sandbox.core.errors import ConfigError
from sandbox.core.game import Game
from sandbox.core.seat import FALLBACK_PROVIDER, Agent, AgentAnswer, DecisionContext
from sandbox.games.registry import get_variant
from sandbox.session.gamefile import parse_config
from sandbox.session.runner import ABORTED, Runner

SILENT = 4


class ProviderDown(Agent):
    """A seat whose model provider always fails: every decision falls back."""

    kind = "llm"

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        return AgentAnswer(None, fallback_reason=FALLBACK_PROVIDER)


def played(abort_seat: int | None) -> Game:
    variant = get_variant("killer")
    game = Game.new(variant, variant.parse_config({}), 5)
    agents: dict[int, Agent] = {s: RandomAgent(s) for s in game.seats}
    agents[SILENT] = ProviderDown()
    runner = Runner(game, agents, abort_share=0.25, abort_seat=abort_seat)
    asyncio.run(runner.run())
    return game


def test_one_silent_seat_of_eleven_is_under_the_tables_share() -> None:
    game = played(None)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason != ABORTED


def test_counting_the_silent_seat_alone_aborts_the_game() -> None:
    game = played(SILENT)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == ABORTED
    assert f"seat {SILENT}: " in outcome.summary


def test_counting_another_seat_does_not_abort() -> None:
    outcome = played(1).outcome()
    assert outcome is not None and outcome.reason != ABORTED


def test_an_abort_seat_outside_the_table_is_refused(tmp_path: Path) -> None:
    raw = {"variant": "killer", "run": {"abort_seat": 13}, "agent": [{"kind": "random"}]}
    with pytest.raises(ConfigError, match=r"run.abort_seat: 13 out of range; allowed: 1..12"):
        parse_config(raw)
    variant = get_variant("killer")
    game = Game.new(variant, variant.parse_config({}), 1)
    with pytest.raises(ValueError, match="abort_seat 13 is not a seat"):
        Runner(game, {s: RandomAgent(s) for s in game.seats}, abort_seat=13)
