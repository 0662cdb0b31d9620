"""The "Now" panel in plain words (issue 38 item 3): no blanks, and of the
rulings only those that differ from the variant's defaults, the rules in full
behind a link."""

from __future__ import annotations

import re

from sandbox.core.game import Game
from sandbox.session.gamefile import parse_config
from sandbox.web.now import now_of
from sandbox.web.pages import render_view


def werewolf_view(**rules: object) -> Game:
    loaded = parse_config({"variant": "werewolf", "rules": rules})
    game = Game.new(loaded.variant, loaded.game_config, 3)
    for _ in range(3):  # the night and the first speeches, by fallbacks
        for request in game.pending():
            game.submit_fallback(request.id, "test")
    return game


def now_section(html: str) -> str:
    found = re.search(r'<section class="now".*?</section>', html, re.S)
    assert found is not None
    return found.group(0)


def test_only_the_rulings_that_differ_are_named() -> None:
    game = werewolf_view(soften_words=False, rounds=3)
    now = now_of(game.view(2), "en")
    assert now.rulings == [("rounds", "3"), ("soften words", "no")]  # in the rules' order
    html = now_section(render_view(game.view(2), "en"))
    assert "Rules that differ from the standard game:" in html
    assert "preset" not in html and "wolf all abstain" not in html  # defaults stay out
    assert "data-open-rules" in html and "The rules in full" in html


def test_the_standard_game_says_so_and_blanks_are_left_out() -> None:
    view = werewolf_view().view(2)
    now = now_of(view, "en")
    assert now.rulings == []
    labels = [label for label, _ in now.facts]
    assert "floor" not in labels and "roles" not in labels  # "floor none", "roles none"
    assert "day" in labels and "living" in labels
    html = now_section(render_view(view, "en"))
    assert "The standard rules of this game." in html and "kaggle" not in html


def test_a_variant_without_rulings_in_its_view_shows_none() -> None:
    loaded = parse_config({"variant": "four_factions"})
    game = Game.new(loaded.variant, loaded.game_config, 3)
    now = now_of(game.view(2), "en")
    assert now.rulings is None and now.facts
    assert 'class="rulings"' not in render_view(game.view(2), "en")
