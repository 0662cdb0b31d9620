"""Helpers to drive Killer games decision by decision in tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.games.registry import get_variant

KILLER = get_variant("killer")
# The standard 12-seat table of these tests: killers 1-3, police 4-6, civilians 7-12.
KILLERS = (1, 2, 3)
POLICE = (4, 5, 6)
CIVILIANS = (7, 8, 9, 10, 11, 12)


def fixed_seats(players: int = 12) -> list[dict[str, Any]]:
    side = 3 if players <= 14 else 4
    roles = ["killer"] * side + ["police"] * side + ["civilian"] * (players - 2 * side)
    return [{"seat": i + 1, "role": r} for i, r in enumerate(roles)]


def new_game(seed: int = 0, players: int = 12, **rules: Any) -> Game:
    config = KILLER.parse_config({"players": players, "seat": fixed_seats(players), **rules})
    return Game.new(KILLER, config, seed)


def pending(game: Game, decision: str | None = None) -> list[DecisionRequest]:
    return [r for r in game.pending() if decision is None or r.decision == decision]


def request_of(game: Game, seat: int) -> DecisionRequest:
    for request in game.pending():
        if request.seat == seat:
            return request
    raise AssertionError(f"seat {seat} has no open request; open: {game.pending()}")


def answer_step(
    game: Game, choose: Callable[[DecisionRequest], Mapping[str, Any]] | None = None
) -> list[Event]:
    """Answer every open request of the current step (fallback when ``choose`` is None)."""
    produced: list[Event] = []
    for request in game.pending():
        if choose is None:
            produced += game.submit_fallback(request.id, "test")
        else:
            produced += game.submit(request.id, dict(choose(request)))
    return produced


def night(game: Game, kill: int | None, check: int | None = None) -> list[Event]:
    """Every living killer names ``kill``; every living police names ``check``."""
    events = answer_step(game, lambda r: {"target": kill})
    events += answer_step(game, lambda r: {"suspect": check})
    return events


def talk_until_vote(game: Game) -> list[Event]:
    """Pass every last-words and speech request until a vote opens (or the game ends)."""
    events: list[Event] = []
    while not game.over and game.pending()[0].decision in ("speech", "last_words"):
        events += answer_step(game, None)
    return events


def vote(game: Game, ballots: Mapping[int, int | None]) -> list[Event]:
    """Each listed seat votes as given; unlisted seats abstain."""
    return answer_step(game, lambda r: {"target": ballots.get(r.seat)})


def of_kind(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def visible_kinds(game: Game, seat: int) -> list[str]:
    return [e.kind for _, e in game.visible_events(seat)]
