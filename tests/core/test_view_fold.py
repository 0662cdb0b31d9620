"""The core's incremental views agree with a from-scratch build, for every variant."""

from __future__ import annotations

import asyncio
import json

import pytest

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.runner import Runner


@pytest.mark.parametrize("name", variant_names())
def test_incremental_view_equals_full_build_at_every_step(name: str) -> None:
    variant = get_variant(name)
    config = variant.parse_config({})
    game = Game.new(variant, config, 11)
    snapshots: list[tuple[int, int, object]] = []

    class Watching(RandomAgent):
        async def decide(self, ctx):  # type: ignore[no-untyped-def]
            view = ctx.view  # served by the incremental fold
            full = variant.build_view(ctx.seat, game.visible_events(ctx.seat))
            assert view == full
            snapshots.append((ctx.seat, len(game.events), view))
            return await super().decide(ctx)

    agents = {s: Watching(s) for s in game.seats}
    asyncio.run(Runner(game, agents, abort_share=None).run())
    assert len(snapshots) > 20
    # an earlier snapshot is not changed by later folding
    seat, upto, early = snapshots[0]
    rebuilt = variant.build_view(seat, [(i, e) for i, e in game.visible_events(seat) if i < upto])
    assert early == rebuilt


@pytest.mark.parametrize("name", variant_names())
def test_a_view_and_a_context_carry_the_variant_itself_and_its_name_in_json(name: str) -> None:
    variant = get_variant(name)
    game = Game.new(variant, variant.parse_config({}), 3)
    request = game.pending()[0]
    ctx = DecisionContext.for_request(game, request)
    assert ctx.variant is variant and ctx.view.variant is variant
    assert variant.build_view(request.seat, game.visible_events(request.seat)).variant is variant
    plain = ctx.view.to_json()
    assert plain["variant"] == name  # the JSON form (goldens, remote programs) as before
    assert json.loads(json.dumps(plain)) == plain
