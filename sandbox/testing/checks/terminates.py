"""The ``terminates`` check: the game ends (within the kit's decision cap)
with a result in win/lose/draw for every seat."""

from __future__ import annotations

from sandbox.core.game import Game
from sandbox.testing.report import fail

RESULTS = frozenset({"win", "lose", "draw"})


def check_terminates(game: Game, seed: int, capped: bool) -> None:
    """``capped``: play stopped at the decision cap rather than at the end."""
    if capped or not game.over:
        raise fail(game, seed, "terminates", "the game did not end")
    outcome = game.outcome()
    if outcome is None:
        raise fail(game, seed, "terminates", "over, but no outcome")
    if set(outcome.results) != set(game.seats):
        raise fail(game, seed, "terminates", f"results for seats {sorted(outcome.results)}")
    odd = {r for r in outcome.results.values() if r not in RESULTS}
    if odd:
        raise fail(game, seed, "terminates", f"results {sorted(odd)} not in win/lose/draw")
