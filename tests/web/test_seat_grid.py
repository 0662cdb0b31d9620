"""The seats at a glance (issue 38 item 3): a grid of seat tiles on the seat's
page — alive or dead, the seat speaking now, the votes each has today (each
voter's latest ballot) and its latest claim — from the seat's own view only."""

from __future__ import annotations

import re

from sandbox.core.game import Game
from sandbox.session.gamefile import parse_config
from sandbox.web.pages import render_view
from sandbox.web.table import seat_board

TILE = re.compile(r'<li data-seat="(\d+)" class="tile([^"]*)">(.*?)</li>', re.S)


def werewolf_until(decision: str, seat_of_view: int = 2) -> Game:
    """A Werewolf game played by fallbacks until ``decision`` is first asked."""
    loaded = parse_config({"variant": "werewolf"})
    game = Game.new(loaded.variant, loaded.game_config, 3)
    while not any(r.decision == decision for r in game.pending()):
        for request in game.pending():
            game.submit_fallback(request.id, "test")
    return game


def tiles(html: str) -> dict[int, tuple[str, str]]:
    return {int(s): (classes, text) for s, classes, text in TILE.findall(html)}


def test_the_grid_marks_the_dead_and_the_speaker() -> None:
    game = werewolf_until("speech")
    view = game.view(2)
    speaker = next(r.seat for r in game.pending() if r.decision == "speech")
    rows, _ = seat_board(view, "en")
    assert speaker == view.public["speaking_order"][0]  # the speaker's turn is open
    assert [r.seat for r in rows if r.speaking] == [speaker]
    found = tiles(render_view(view, "en"))
    assert sorted(found) == list(range(1, 9))
    dead = {int(d["seat"]) for d in view.public["dead"]}
    assert dead and {s for s, (c, _) in found.items() if " dead" in c} == dead
    assert " speaking" in found[speaker][0] and "speaking now" in found[speaker][1]
    assert " mine" in found[2][0] and "(you)" in found[2][1]


def test_todays_votes_are_counted_per_seat() -> None:
    game = werewolf_until("vote")
    votes = 0
    while any(r.decision == "vote" for r in game.pending()) and votes < 3:
        request = next(r for r in game.pending() if r.decision == "vote")
        target = next(s for s in (3, 4) if s != request.seat)
        game.submit(request.id, {"target": target})
        votes += 1
    view = game.view(2)
    rows = {r.seat: r for r in seat_board(view, "en")[0]}
    announced = sum(r.votes_today for r in rows.values())
    assert announced > 0  # sequential ballots are announced one by one
    found = tiles(render_view(view, "en"))
    counted = {
        s: int(m.group(1))
        for s, (_, text) in found.items()
        if (m := re.search(r"votes today: (\d+)", text))
    }
    assert counted == {s: r.votes_today for s, r in rows.items() if r.votes_today}
    assert set(counted) <= {3, 4}
