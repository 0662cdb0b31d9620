"""OD-10, the virtual clock, as a property (issue 42's "Done when"): an all-AI
Killer game with an open day is the same game for the same seed however slow
its seats are. LLM seats play through the fake provider on loopback, whose
answers are seeded by the prompt; each run gives the server another latency
and jitter, so the seats' answers arrive in other orders and at other times.
The transcripts' events must be identical."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.game import Game
from sandbox.models.fake import FakeLLMServer
from sandbox.session.agent_specs import LLMSpec
from sandbox.session.gamefile import GameFile, LoadedConfig
from sandbox.session.runner import Runner
from sandbox.session.seating import seat_agent
from tests.games.killer.helpers import KILLER

pytestmark = pytest.mark.rule("OD-10")

# One open day, then the day limit ends the game (KG-12 ruling): short, and the
# open day is the whole of the day's talk.
RULES: dict[str, Any] = {
    "players": 11,
    "discussion": "open",
    "messages_per_seat": 2,
    "day_limit": 1,
}
FAST = {"retry_attempts": 4, "retry_max_wait_s": 0.02, "retry_total_s": 20.0, "timeout_s": 10.0}

latency = st.floats(min_value=0.0, max_value=0.01)
jitter = st.floats(min_value=0.0, max_value=0.03)


def play(seed: int, latency_s: float, jitter_s: float) -> list[dict[str, Any]]:
    """An open Killer game of fake LLM seats against a server this slow; its events."""
    with FakeLLMServer(latency_s=latency_s, latency_jitter_s=jitter_s, seed=3) as server:
        spec = LLMSpec(kind="llm", model="fake/legal-random", api_base=server.base_url)
        config = KILLER.parse_config(RULES)
        loaded = LoadedConfig(
            GameFile(variant="killer", default_agent=spec, llm=LLMSettings(**FAST)), KILLER, config
        )
        game = Game.new(KILLER, config, seed)
        agents = {s: seat_agent(loaded, spec, s, seed * 100 + s) for s in game.seats}

        async def run() -> None:
            try:
                await Runner(game, agents, abort_share=None).run()
            finally:
                for agent in agents.values():
                    await agent.close()

        asyncio.run(run())
    assert game.over
    return [e.to_json() for e in game.events]


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=1, max_value=50),
    first=st.tuples(latency, jitter),
    second=st.tuples(latency, jitter),
)
def test_od10_the_same_seed_gives_the_same_open_game_however_slow_the_seats(
    seed: int, first: tuple[float, float], second: tuple[float, float]
) -> None:
    events = play(seed, *first)
    assert any(e["kind"] == "discussion.round" for e in events)  # an open day was played
    assert play(seed, *second) == events
