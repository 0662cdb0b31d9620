"""Prompts built for prefix caches, end to end: whole games of both variants
on the fake provider. Each seat's prompt starts with the system text and the
record of its previous prompt; the fake's reported cached tokens on a seat's
later prompts are exactly that per-seat reuse (its cache also serves the
rules text other seats sent first, so only first prompts can get more)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.models.fake import FakeLLMServer
from sandbox.models.fake.server import common_prefix
from sandbox.play.gamefile import load_config
from sandbox.play.runner import Runner
from sandbox.play.seating import build_agents

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


async def play_on(fake: FakeLLMServer, name: str, seed: int) -> list[dict[str, Any]]:
    loaded = load_config(CONFIGS / name)
    spec = loaded.file.default_agent.model_copy(update={"api_base": fake.base_url})
    file = loaded.file.model_copy(update={"default_agent": spec, "agent": []})
    loaded = type(loaded)(file, loaded.variant, loaded.game_config, loaded.source)
    game = Game.new(loaded.variant, loaded.game_config, seed)
    agents = build_agents(loaded, game.roles(), seed)
    calls: list[dict[str, Any]] = []

    class Recording(Runner):
        def _submit(self, request: Any, answer: Any) -> None:
            calls.extend({**c, "seat": request.seat} for c in answer.calls)
            super()._submit(request, answer)

    try:
        await Recording(game, agents, abort_share=None).run()
    finally:
        for agent in agents.values():
            await agent.close()
    return calls


@pytest.mark.parametrize("name", ["four_factions_fake.toml", "killer_fake.toml"])
async def test_cached_tokens_equal_each_seats_own_prefix(fake: FakeLLMServer, name: str) -> None:
    calls = [c for c in await play_on(fake, name, 1) if c.get("raw") is not None]
    earlier: dict[int, list[str]] = {}
    stable: dict[int, str] = {}  # the seat's last system text and record
    own = tokens = later = 0
    for call in calls:
        text = "".join(m["content"] for m in call["messages"])
        seen = earlier.setdefault(call["seat"], [])
        if seen:
            best = max(common_prefix(text, e) for e in seen)
            assert call["cached_tokens"] == best // 4, call["seat"]
            assert text.startswith(stable[call["seat"]])  # append-only record
            own += best // 4
            later += 1
        tokens += len(text) // 4
        seen.append(text)
        if call["repair"] == 0:
            stable[call["seat"]] = text[: call["stable_chars"]]
    assert later > 30
    # Most of every game's prompt tokens are reused (69-87% over the bench's seeds:
    # how much depends on the game's length, as a seat's first prompt reuses nothing).
    assert own / tokens > 0.5
