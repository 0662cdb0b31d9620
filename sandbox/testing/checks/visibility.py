"""The ``visibility`` check: every seat's view history holds exactly the
events visible to that seat, in order."""

from __future__ import annotations

from sandbox.core.game import Game
from sandbox.testing.checks.fold import compare_fold
from sandbox.testing.report import fail


def check_visibility(game: Game, seed: int) -> None:
    """Every seat at the end of the game (its view checked by the fold check too)."""
    for seat in game.seats:
        visible = [seq for seq, _ in game.visible_events(seat)]
        view = compare_fold(game, seat)
        seen = [item.seq for item in view.history]
        if seen != visible:
            extra = sorted(set(seen) - set(visible))
            missing = sorted(set(visible) - set(seen))
            raise fail(
                game,
                seed,
                "visibility",
                f"seat {seat}'s history: not visible {extra[:5]}, missing "
                f"{missing[:5]}, or out of order",
            )
