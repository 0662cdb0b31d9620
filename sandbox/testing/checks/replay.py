"""The ``replay`` check: events serialized to JSON and read back rebuild the
same game (``Game.from_events``): the same outcome, roles and every seat's view,
which is what resuming and viewing a transcript rely on."""

from __future__ import annotations

import json

from sandbox.core.events import event_from_json
from sandbox.core.game import Game
from sandbox.testing.play import events_json, first_difference
from sandbox.testing.report import checking, fail


def check_replay(game: Game, seed: int) -> None:
    """The ended ``game`` against one rebuilt from its events' JSON."""
    with checking(game, seed, "replay"):
        raw = json.loads(json.dumps(events_json(game.events)))
        events = [event_from_json(r) for r in raw]
        first = first_difference(raw, events_json(events))
        if first is not None:
            raise fail(game, seed, "replay", f"event {first} changes through JSON")
        rebuilt = Game.from_events(game.variant, game.config, game.seed, events)
        if not rebuilt.over or rebuilt.outcome() != game.outcome():
            raise fail(game, seed, "replay", "the rebuilt game has another outcome")
        if dict(rebuilt.roles()) != dict(game.roles()):
            raise fail(game, seed, "replay", "the rebuilt game has other roles")
        for seat in game.seats:
            if rebuilt.view(seat) != game.view(seat):
                raise fail(game, seed, "replay", f"seat {seat}'s view differs when rebuilt")
