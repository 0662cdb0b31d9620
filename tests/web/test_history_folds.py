"""The history folded by day, the current day open (issue 38 item 3): each day
of the seat's view is one fold, only the last open (and any day holding an item
new since the seat's last turn); a spectator's flat list is not folded."""

from __future__ import annotations

import re

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.session.gamefile import parse_config
from sandbox.web.pages import Entry, render_entries, render_view
from tests.web.helpers import GameThread
from tests.web.test_seat import killer_file

FOLD = re.compile(r'<details class="day" data-day="(\d+)"( open)?><summary>([^<]*)</summary>')


def played_killer() -> Game:
    loaded = parse_config(killer_file())
    game = Game.new(loaded.variant, loaded.game_config, 3)
    GameThread(game, {s: RandomAgent(100 + s) for s in game.seats}).run()
    assert game.over
    return game


def test_each_day_is_a_fold_and_only_the_current_one_is_open() -> None:
    game = played_killer()
    view = game.view(3)
    seen = max(item.seq for item in view.history)
    html = render_view(view, "en", last_seen=seen)  # nothing new since the last turn
    folds = FOLD.findall(html)
    days = sorted({item.day or 0 for item in view.history})
    assert [int(d) for d, _, _ in folds] == days and len(days) >= 3
    assert [bool(o) for _, o, _ in folds] == [False] * (len(days) - 1) + [True]
    assert folds[-1][2] == f"Day {days[-1]}"
    # every entry is still on the page, inside its day's fold
    assert html.count("<li class=") == len(re.findall(r'data-seq="\d+"', html))


def test_a_day_with_new_items_is_open_too() -> None:
    view = played_killer().view(3)
    days = sorted({item.day or 0 for item in view.history})
    first_of_last_but_one = min(i.seq for i in view.history if (i.day or 0) == days[-2])
    html = render_view(view, "en", last_seen=first_of_last_but_one)
    opened = [int(d) for d, o, _ in FOLD.findall(html) if o]
    assert opened == days[-2:]


def test_a_spectators_flat_list_is_not_folded() -> None:
    html = render_entries([Entry(1, "referee", "Seat 1 is out.")], "en")
    assert "<details" not in html and "Seat 1 is out." in html
