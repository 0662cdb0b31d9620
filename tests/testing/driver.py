"""Synchronous helpers to play games fast in tests (no event loop per decision)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.seat import Agent, DecisionContext, decide_now
from sandbox.core.variant import Variant


def context(game: Game, request_id: str) -> DecisionContext:
    request = next(r for r in game.pending() if r.id == request_id)
    return DecisionContext.for_request(game, request)


def play(
    game: Game, agents: Mapping[int, Agent], max_decisions: int = 100_000
) -> list[dict[str, Any]]:
    """Play to the end; return every decision as {request_id, seat, payload|fallback}."""
    log: list[dict[str, Any]] = []
    while not game.over:
        for request in game.pending():
            answer = decide_now(agents[request.seat], context(game, request.id))
            if answer.payload is None:
                reason = answer.fallback_reason or "invalid"
                game.submit_fallback(request.id, reason)
                log.append({"request_id": request.id, "seat": request.seat, "fallback": reason})
            else:
                made = game.submit(request.id, answer.payload)[0]
                payload = dict(made.payload)  # type: ignore[attr-defined]
                log.append({"request_id": request.id, "seat": request.seat, "payload": payload})
            if len(log) > max_decisions:
                raise RuntimeError("game did not terminate")
    return log


def random_game(
    variant: Variant[Any], config: BaseModel, seed: int
) -> tuple[Game, list[dict[str, Any]]]:
    game = Game.new(variant, config, seed)
    rng = random.Random(seed)
    agents = {s: RandomAgent(rng.getrandbits(32)) for s in game.seats}
    return game, play(game, agents)
