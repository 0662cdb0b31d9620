"""Random legal play, the game the checks look at: every seat answers
uniformly among the options the referee accepts (or, given ``players``, as
those players answer: e.g. a variant's bots), and the decisions are kept so
that the same game can be played again (:func:`replay`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest, draw_payload
from sandbox.core.variant import Variant

# One decision of a played game: request id, seat, and "payload" or "fallback".
Decision = dict[str, Any]
# Called before each decision is answered (the fold and no-leak checks).
Watch = Callable[[Game, DecisionRequest], None]
# Answers one request of a game: a payload, or None for the referee's fallback.
Answerer = Callable[[Game, DecisionRequest], dict[str, Any] | None]
# Makes the answerer of one game (called once per game, with the new game).
Players = Callable[[Game], Answerer]

TRIES = 64  # random draws per decision before the fallback (rules may tie fields)


def play_random(
    variant: Variant[Any],
    config: BaseModel,
    seed: int,
    *,
    max_decisions: int = 20_000,
    watch: Watch | None = None,
    players: Players | None = None,
) -> tuple[Game, list[Decision]]:
    """A game in which every seat answers uniformly among the legal options
    (the fallback after TRIES refused draws), or as ``players`` answer. Stops
    after ``max_decisions``."""
    game = Game.new(variant, config, seed)
    rng = random.Random(seed)
    answerer = players(game) if players is not None else None
    log: list[Decision] = []
    while not game.over and len(log) <= max_decisions:
        request = game.pending()[0]
        if watch is not None:
            watch(game, request)
        payload = answerer(game, request) if answerer else legal_answer(game, request, rng)
        entry: Decision = {"request_id": request.id, "seat": request.seat}
        if payload is None:
            entry["fallback"] = "invalid"
            game.submit_fallback(request.id, "invalid")
        else:
            entry["payload"] = payload
            game.submit(request.id, payload)
        log.append(entry)
    return game, log


def legal_answer(game: Game, request: DecisionRequest, rng: random.Random) -> dict[str, Any] | None:
    """A uniform draw the referee accepts, normalised; None after TRIES refusals."""
    for _ in range(TRIES):
        try:
            return game.validate(request.id, draw_payload(request, rng))
        except IllegalDecision:
            continue
    return None


def replay(variant: Variant[Any], config: BaseModel, seed: int, log: list[Decision]) -> Game:
    """The game again from its seed and decisions."""
    game = Game.new(variant, config, seed)
    for entry in log:
        if "fallback" in entry:
            game.submit_fallback(entry["request_id"], entry["fallback"])
        else:
            game.submit(entry["request_id"], entry["payload"])
    return game


def events_json(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The events as the transcript writes them, for comparing two games."""
    return [e.to_json() for e in events]


def first_difference(a: Sequence[Any], b: Sequence[Any]) -> int | None:
    """The first index where the sequences differ (a length counts), else None."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))
