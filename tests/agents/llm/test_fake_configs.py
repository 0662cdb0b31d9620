"""The fake game files drive the real variants through LLM seats: the run
starts the built-in fake server itself and stops it when the seats close."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from sandbox.agents.llm.agent import LLMAgent
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import AgentAnswer, DecisionContext
from sandbox.models import endpoints
from sandbox.session.gamefile import load_config
from sandbox.session.seating import build_agents

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
STEPS = 3


@pytest.mark.parametrize("name", ["four_factions_fake.toml", "killer_fake.toml"])
async def test_fake_config_plays_real_variant_steps(name: str) -> None:
    loaded = load_config(CONFIGS / name)
    game = Game.new(loaded.variant, loaded.game_config, 1)
    agents = build_agents(loaded, game.roles(), 1)
    assert all(isinstance(a, LLMAgent) for a in agents.values())
    answered: list[tuple[DecisionRequest, AgentAnswer]] = []
    try:
        for _ in range(STEPS):
            pending = game.pending()
            answers = await asyncio.gather(
                *(agents[r.seat].decide(DecisionContext.for_request(game, r)) for r in pending)
            )
            for request, answer in zip(pending, answers, strict=True):
                answered.append((request, answer))
                if answer.payload is None:
                    game.submit_fallback(request.id, str(answer.fallback_reason), answer.note)
                else:
                    game.submit(request.id, answer.payload, answer.note)
        assert endpoints._fake_server is not None
    finally:
        for agent in agents.values():
            await agent.close()
    assert endpoints._fake_server is None  # the last seat to close stopped it
    legal = [a for r, a in answered if agents[r.seat].target.model == "fake/legal-random"]
    assert legal and all(a.payload is not None for a in legal)
    assert all(a.calls and a.calls[0]["parsed"] is not None for a in legal)
    assert_notes_stay_private(answered)


def assert_notes_stay_private(answered: list[tuple[DecisionRequest, AgentAnswer]]) -> None:
    notes = {(r.seat, a.note) for r, a in answered if a.note}
    assert notes
    for request, answer in answered:
        prompt = json.dumps([c.get("messages") for c in answer.calls])
        leaked = [seat for seat, note in notes if seat != request.seat and note in prompt]
        assert not leaked, f"seat {request.seat} saw private notes of seats {leaked}"


def test_docs_and_fake_configs_name_every_fake_policy() -> None:
    """D1: the policy list is documented in config.md and in the fake configs."""
    from sandbox.models.fake.answers import POLICIES

    root = Path(__file__).parents[3]
    docs = (root / "docs" / "config.md").read_text(encoding="utf-8")
    section = docs.split("## The fake provider", 1)[1].split("\n## ", 1)[0]
    assert all(f"| `{policy}` |" in section for policy in POLICIES)
    assert "openai/fake-legal-random" in section  # the rewritten model name
    for name in ("killer_fake.toml", "four_factions_fake.toml"):
        text = (root / "configs" / name).read_text(encoding="utf-8")
        assert all(f"fake/{policy}" in text for policy in POLICIES), name
