"""Fixtures for LLM-seat tests: a fake provider on loopback and toy games wired to it.

Every test goes through the real path: LLMAgent → openai SDK (or litellm, for
``openai/...`` model strings, as remote models are called) → HTTP → the fake
server. Latencies, timeouts and backoff are tiny to keep the suite fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext
from sandbox.models.fake import FakeLLMServer
from sandbox.session.agent_specs import AgentSpec, LLMSpec
from sandbox.session.gamefile import GameFile, LoadedConfig
from sandbox.session.runner import Runner
from sandbox.session.seating import seat_agent
from sandbox.transcript import TranscriptWriter
from tests.core.toy import Toy, ToyConfig

TOY = Toy()
FAST_RETRY = {"retry_attempts": 4, "retry_max_wait_s": 0.02, "retry_total_s": 10.0}


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=7, hang_s=5.0) as server:
        yield server


def llm_spec(fake: FakeLLMServer, policy: str, **extra: Any) -> LLMSpec:
    fields: dict[str, Any] = {"timeout_s": 2.0, **extra}
    return LLMSpec(kind="llm", model=f"fake/{policy}", api_base=fake.base_url, **fields)


def make_llm_agent(loaded: LoadedConfig, spec: AgentSpec, seat: int, seed: int) -> Agent:
    """The seat's agent as a game file builds it (spec + [llm] defaults), seated."""
    return seat_agent(loaded, spec, seat, seed)


def toy_loaded(spec: AgentSpec, seats: int = 3, **llm: Any) -> LoadedConfig:
    defaults = LLMSettings(**{**FAST_RETRY, **llm})
    file = GameFile(variant="toy", default_agent=spec, llm=defaults)
    return LoadedConfig(file, TOY, ToyConfig(seats=seats))


async def play_toy(
    loaded: LoadedConfig,
    seed: int = 1,
    writer: TranscriptWriter | None = None,
    abort_share: float | None = None,
) -> tuple[Game, Runner]:
    game = Game.new(TOY, loaded.game_config, seed)
    spec = loaded.file.default_agent
    agents = {s: make_llm_agent(loaded, spec, s, seed * 100 + s) for s in game.seats}
    runner = Runner(game, agents, writer, abort_share=abort_share)
    try:
        await runner.run()
    finally:
        for agent in agents.values():
            await agent.close()
    return game, runner


Validator = Callable[[object], dict[str, Any]]


async def decide_once(
    spec: AgentSpec, check: Callable[[Validator], Validator] | None = None, **llm: Any
) -> AgentAnswer:
    """One pick decision for seat 1 of a fresh toy game; ``check`` may wrap the
    referee's validation with an extra rule."""
    loaded = toy_loaded(spec, **llm)
    game = Game.new(TOY, loaded.game_config, 1)
    request = game.pending()[0]
    agent = make_llm_agent(loaded, spec, request.seat, 1)
    try:
        return await agent.decide(context(game, request, check))
    finally:
        await agent.close()  # its pooled client too: no test leaves one to the next


def context(
    game: Game, request: DecisionRequest, check: Callable[[Validator], Validator] | None = None
) -> DecisionContext:
    ctx = DecisionContext.for_request(game, request)
    return replace(ctx, validate=check(ctx.validate)) if check else ctx
