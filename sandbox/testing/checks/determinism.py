"""The ``determinism`` check: the same seed and decisions give the same
events again (a variant drawing from anything but the generator it is handed,
or keeping state between games, fails it)."""

from __future__ import annotations

from sandbox.core.game import Game
from sandbox.testing.play import Decision, events_json, first_difference, replay
from sandbox.testing.report import checking, fail


def check_determinism(game: Game, seed: int, log: list[Decision]) -> None:
    """Plays the game again from ``seed`` and ``log`` and compares the events."""
    with checking(game, seed, "determinism"):
        again = replay(game.variant, game.config, seed, log)
        first = first_difference(events_json(game.events), events_json(again.events))
    if first is not None:
        raise fail(game, seed, "determinism", f"event {first} differs on a replay")
