"""The cycle of a Killer game (KG-11: night n, then day n, until the end) and its
floor (KG-15: nobody speaks out of turn)."""

from __future__ import annotations

import pytest

from sandbox.core.errors import UnknownRequest
from sandbox.games.killer.events import Dawn, NightFell
from tests.games.killer.helpers import answer_step, new_game, night


@pytest.mark.rule("KG-11")
def test_night_and_day_alternate_until_the_game_ends() -> None:
    game = new_game(day_limit=4)
    while not game.over:
        answer_step(game, None)  # nobody is named, nobody dies: only the limit ends it
    cycle = [
        ("night", e.night) if isinstance(e, NightFell) else ("day", e.day)
        for e in game.events
        if isinstance(e, NightFell | Dawn)
    ]
    assert cycle == [(part, n) for n in range(1, 5) for part in ("night", "day")]
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "day_limit"


@pytest.mark.rule("KG-15", "KG-8")
def test_only_the_seat_holding_the_floor_is_asked_to_speak() -> None:
    game = new_game()
    night(game, kill=5)
    answer_step(game, None)  # seat 5's last words
    order = []
    while game.pending()[0].decision == "speech":
        (turn,) = game.pending()  # one speaker at a time, never two
        order.append(turn.seat)
        waiting = turn.id.replace(f".{turn.seat}.", f".{1 + turn.seat % 12}.")
        with pytest.raises(UnknownRequest):
            game.submit(waiting, {"speech": "out of turn"})
        answer_step(game, None)
    assert order == [6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4]
