"""Plays games of baseline bots with a hook on every decision (test helper)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext, decide_now
from sandbox.core.variant import SeatView
from sandbox.games.registry import get_variant
from sandbox.session.seating import seat_seed
from sandbox.testing.play import Answerer

Hook = Callable[[DecisionRequest, SeatView, AgentAnswer], None]


def answer(agent: Agent, ctx: DecisionContext) -> AgentAnswer:
    """A bot's answer without an event loop (bots never await)."""
    return decide_now(agent, ctx)


def context(game: Game, request: DecisionRequest) -> DecisionContext:
    return DecisionContext.for_request(game, request)


def bots_for(
    variant: str, game: Game, seed: int, language: str = "en", level: int = 0
) -> dict[int, Agent]:
    """Each seat's baseline bot, set to ``level`` when not 0 (issue 37's deducing bots)."""
    bots = {s: baseline_bot(game.variant, seat_seed(seed, s), language) for s in game.seats}
    for bot in bots.values() if level else ():
        bot.at_level(level)  # type: ignore[attr-defined]
    return bots


def new_game(variant: str, raw: dict[str, Any], seed: int) -> Game:
    v = get_variant(variant)
    return Game.new(v, v.parse_config(raw), seed)


def play(
    variant: str,
    raw: dict[str, Any],
    seed: int,
    hook: Hook | None = None,
    stop: Callable[[DecisionRequest], bool] | None = None,
    language: str = "en",
    level: int = 0,
) -> tuple[Game, int]:
    """Play to the end (or until ``stop`` says so for a pending request); return
    the game and how many answers were fallbacks."""
    game = new_game(variant, raw, seed)
    agents = bots_for(variant, game, seed, language, level)
    fallbacks = 0
    while not game.over:
        for request in game.pending():
            if stop is not None and stop(request):
                return game, fallbacks
            reply = answer(agents[request.seat], context(game, request))
            if hook is not None:
                hook(request, game.view(request.seat), reply)
            if reply.payload is None:
                fallbacks += 1
                game.submit_fallback(request.id, reply.fallback_reason or "invalid")
            else:
                game.submit(request.id, reply.payload)
    return game, fallbacks


def bot_players(level: int, language: str = "en") -> Callable[[Game], Answerer]:
    """The conformance kit's ``players``: each game's seats are the variant's
    bots at ``level`` (seeded from the game's seed, as a game file seats them)."""

    def seat_bots(game: Game) -> Answerer:
        bots = bots_for(game.variant.name, game, game.seed, language, level)

        def answer_one(game: Game, request: DecisionRequest) -> dict[str, Any] | None:
            return answer(bots[request.seat], context(game, request)).payload

        return answer_one

    return seat_bots
