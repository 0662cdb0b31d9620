"""The ``fold`` check: the incremental view a variant serves
(``Variant.view_fold``) equals ``build_view`` over the same events, and a view
handed out earlier is not changed by later folding."""

from __future__ import annotations

from sandbox.core.game import Game
from sandbox.core.variant import SeatView
from sandbox.testing.report import checking, fail


def compare_fold(game: Game, seat: int) -> SeatView:
    """The seat's view as the core serves it (incremental fold), checked
    against ``build_view`` over the same events."""
    with checking(game, game.seed, "fold"):
        view = game.view(seat)
        full = game.variant.build_view(seat, game.visible_events(seat))
    if view != full:
        raise fail(
            game,
            game.seed,
            "fold",
            f"seat {seat}'s folded view differs from build_view after event {len(game.events) - 1}",
        )
    return view


def check_detached(game: Game, seat: int, upto: int, view: SeatView) -> None:
    """``view``, handed to ``seat`` when the game held ``upto`` events, still
    equals a build from those events (a fold sharing its state with the views
    it returns fails this once it folds more)."""
    with checking(game, game.seed, "fold"):
        events = [(i, e) for i, e in game.visible_events(seat) if i < upto]
        again = game.variant.build_view(seat, events)
    if view != again:
        raise fail(
            game,
            game.seed,
            "fold",
            f"seat {seat}'s view changed after it was handed out "
            "(return detached copies from snapshot())",
        )
