"""Every event a built-in game emits has a readable one-line description
(the CLI's live display and `sandbox view` show these lines)."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.variant import get_variant
from sandbox.runner import Runner


@pytest.mark.parametrize("name", ["four_factions", "killer"])
def test_every_emitted_event_has_its_own_wording(name: str) -> None:
    variant = get_variant(name)
    seen: dict[str, str] = {}
    for seed in range(8):
        game = Game.new(variant, variant.parse_config({}), seed)
        asyncio.run(Runner(game, {s: RandomAgent(s) for s in game.seats}).run())
        for event in game.events:
            if not event.kind.startswith("core."):
                seen[event.kind] = variant.describe_event(event)
    assert len(seen) >= 10
    generic = {k: line for k, line in seen.items() if line.startswith(f"{k}:")}
    assert generic == {}
