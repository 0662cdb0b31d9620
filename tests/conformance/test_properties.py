"""Generic invariants over random games of every registered variant (hypothesis).

Configs come from the variant's golden files (tests/golden/<variant>/), so a
new variant is covered as soon as it has a golden case. Per variant the run
plays the profile's max_examples random games (1000 in the default "ci"
profile, see conftest.py) (random seats, random seeds) and checks:
games terminate; every decision was answered by the seat it was asked of;
every view holds exactly the events visible to that seat; the same seed and
decisions give the same events; a replay from serialized events reproduces
the outcome, the roles and every view.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.core.events import DecisionMade, event_from_json
from sandbox.core.game import Game
from sandbox.games.registry import get_variant, variant_names
from tests.conformance.driver import random_game
from tests.conformance.golden import golden_files

# Views are rebuilt from every event, so the costly checks run on a sample.
DEEP_CHECK_EVERY = 10


def _configs(variant: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text())["config"] for p in golden_files(variant)] or [{}]


def _replay(variant: str, config: Any, seed: int, log: list[dict[str, Any]]) -> Game:
    game = Game.new(get_variant(variant), config, seed)
    for entry in log:
        if "fallback" in entry:
            game.submit_fallback(entry["request_id"], entry["fallback"])
        else:
            game.submit(entry["request_id"], entry["payload"])
    return game


def _check_answers(game: Game, log: list[dict[str, Any]]) -> None:
    made = [e for e in game.events if isinstance(e, DecisionMade)]
    assert [(e.request_id, e.seat) for e in made] == [(d["request_id"], d["seat"]) for d in log]
    assert len({e.request_id for e in made}) == len(made)  # ids unique in a game


def _check_views(game: Game) -> None:
    for seat in game.seats:
        visible = [seq for seq, _ in game.visible_events(seat)]
        assert [h.seq for h in game.view(seat).history] == visible
        assert all(game._vis[seq].visible_to(seat) for seq in visible)


def _check_replays(variant: str, config: Any, seed: int, game: Game, log: list[Any]) -> None:
    again = _replay(variant, config, seed, log)
    assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
    raw = [json.loads(json.dumps(e.to_json())) for e in game.events]
    rebuilt = Game.from_events(
        get_variant(variant), config, seed, [event_from_json(r) for r in raw]
    )
    assert rebuilt.outcome() == game.outcome() and rebuilt.over
    assert rebuilt.roles() == game.roles()
    for seat in game.seats:
        assert rebuilt.view(seat) == game.view(seat)


@pytest.mark.parametrize("variant", variant_names())
def test_random_games_keep_generic_invariants(variant: str) -> None:
    configs = [get_variant(variant).parse_config(raw) for raw in _configs(variant)]
    played = {"n": 0}

    @given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, len(configs) - 1))
    def one_game(seed: int, which: int) -> None:
        config = configs[which]
        game, log = random_game(get_variant(variant), config, seed)  # terminates (capped)
        assert game.over and game.outcome() is not None
        _check_answers(game, log)
        if played["n"] % DEEP_CHECK_EVERY == 0:
            _check_views(game)
            _check_replays(variant, config, seed, game, log)
        played["n"] += 1

    one_game()
    assert played["n"] >= settings().max_examples
