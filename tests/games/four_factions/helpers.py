"""Building and steering Four Factions games through the public Game API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.game import Game
from sandbox.core.seat import Agent, decide_now
from sandbox.games.four_factions.config import FourFactionsConfig
from sandbox.games.registry import get_variant
from tests.testing.driver import context

VARIANT = get_variant("four_factions")


def config(seats: list[dict[str, Any]] | None = None, **rules: Any) -> FourFactionsConfig:
    cfg = VARIANT.parse_config({**rules, "seat": seats or []})
    assert isinstance(cfg, FourFactionsConfig)
    return cfg


def new(seats: list[dict[str, Any]] | None = None, seed: int = 1, **rules: Any) -> Game:
    return Game.new(VARIANT, config(seats, **rules), seed)


def fallback_until(game: Game, day: int, stage: str) -> None:
    """Every seat falls back (no statements, passes, stays home) until the stage opens."""
    while not game.over and not (game.state.day == day and game.state.stage == stage):
        request = game.pending()[0]
        game.submit_fallback(request.id, "exhausted")


def answer_all(game: Game, decision: str, answers: Mapping[int, Mapping[str, Any]]) -> None:
    """Answer every open request of ``decision``: listed seats as given, others fall back."""
    for request in game.pending():
        assert request.decision == decision, request
        if request.seat in answers:
            game.submit(request.id, dict(answers[request.seat]))
        else:
            game.submit_fallback(request.id, "exhausted")


def night(
    game: Game,
    loadouts: Mapping[int, tuple[str, str]] | None = None,
    first: Mapping[int, int] | None = None,
    second: Mapping[int, int] | None = None,
) -> None:
    """Play one fighting night: loadouts, then first- and second-half attacks."""
    while not game.over and game.state.stage != "loadout":
        game.submit_fallback(game.pending()[0].id, "exhausted")
    answer_all(
        game, "loadout", {s: {"weapon": w, "shield": sh} for s, (w, sh) in (loadouts or {}).items()}
    )
    if game.over or game.state.stage != "first_half":
        return
    answer_all(game, "attack", {s: {"target": t} for s, t in (first or {}).items()})
    if game.over or game.state.stage != "second_half":
        return
    answer_all(game, "attack", {s: {"target": t} for s, t in (second or {}).items()})


def seats_of(
    faction: str, elite_seat: int, regulars: list[tuple[int, str]]
) -> list[dict[str, Any]]:
    """[[seat]] entries placing a whole faction: its elite and three regulars with weapons."""
    out: list[dict[str, Any]] = [{"seat": elite_seat, "faction": faction, "elite": True}]
    out += [{"seat": s, "faction": faction, "elite": False, "weapon": w} for s, w in regulars]
    return out


def kinds(game: Game, kind: str) -> list[Any]:
    return [e for e in game.events if e.kind == kind]


def play_until(game: Game, bots: Mapping[int, Agent], day: int, stage: str) -> None:
    """Every seat answers as its bot does until the stage opens (or the game ends)."""
    while not game.over and not (game.state.day == day and game.state.stage == stage):
        for req in game.pending():
            answer = decide_now(bots[req.seat], context(game, req.id))
            assert answer.payload is not None
            game.submit(req.id, answer.payload)
