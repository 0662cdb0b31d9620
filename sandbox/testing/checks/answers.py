"""The ``answers`` check: every recorded decision is the one asked, of the
seat it was asked of, and no request id is used twice in a game."""

from __future__ import annotations

from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.testing.play import Decision
from sandbox.testing.report import fail


def check_answers(game: Game, seed: int, log: list[Decision]) -> None:
    """``log``: the decisions as random play submitted them."""
    made = [(e.request_id, e.seat) for e in game.events if isinstance(e, DecisionMade)]
    asked = [(d["request_id"], d["seat"]) for d in log]
    if made != asked:
        first = next(
            (i for i, (m, a) in enumerate(zip(made, asked, strict=False)) if m != a),
            min(len(made), len(asked)),
        )
        raise fail(game, seed, "answers", f"decision {first} recorded differently from asked")
    if len({rid for rid, _ in made}) != len(made):
        raise fail(game, seed, "answers", "a request id was used twice")
