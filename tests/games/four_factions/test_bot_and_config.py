"""The baseline bot and the shipped game file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.errors import ConfigError
from sandbox.core.game import Game
from sandbox.core.seat import decide_now
from sandbox.games.four_factions.bot import BaselineBot
from sandbox.session.gamefile import load_config, parse_config
from sandbox.session.runner import Runner
from sandbox.session.seating import build_agents
from tests.games.four_factions.helpers import fallback_until, new
from tests.testing.driver import context, play

CONFIG = Path(__file__).parents[3] / "configs" / "four_factions.toml"


def test_shipped_config_plays_a_full_baseline_game() -> None:
    loaded = load_config(CONFIG)
    assert loaded.game_config.model_dump()["day_limit"] == 20  # type: ignore[attr-defined]
    game = Game.new(loaded.variant, loaded.game_config, 3)
    agents = build_agents(loaded, game.roles(), 3)
    assert {a.kind for a in agents.values()} == {"baseline"}
    runner = Runner(game, agents, abort_share=None)
    outcome = asyncio.run(runner.run())
    assert outcome.reason in ("pairs_decided", "day_limit")
    assert runner.stats.fallback_count() == 0  # every bot answer was legal


def test_baseline_never_falls_back_over_several_games() -> None:
    for seed in range(4):
        game = new(seed=seed, day_limit=7)
        log = play(game, {s: BaselineBot(seed * 31 + s) for s in game.seats})
        assert not [d for d in log if "fallback" in d]


def test_elite_bot_accuses_a_regular_it_knows_lied() -> None:
    game = new(seed=4)
    state = game.state
    elite = next(s for s in sorted(state.elite) if state.elite[s] and s != 1)
    # Every seat claims wolves on day 1; the elite knows who is not a wolf.
    for _ in range(16):
        (req,) = game.pending()
        game.submit(req.id, {"am": "wolves", "speech": ""})
    while game.pending()[0].seat != elite:
        game.submit_fallback(game.pending()[0].id, "exhausted")
    (req,) = game.pending()
    answer = decide_now(BaselineBot(1), context(game, req.id))
    assert answer.payload is not None
    target, faction = answer.payload["target"], answer.payload["faction"]
    assert not state.elite[target] and state.faction[target] == faction != "wolves"


def test_regular_bot_never_attacks_its_own_elite() -> None:
    for seed in range(6):
        game = new(seed=seed, day_limit=4)
        fallback_until(game, 4, "loadout")
        while not game.over and game.state.stage in ("loadout", "first_half", "second_half"):
            for req in game.pending():
                answer = decide_now(BaselineBot(seed + req.seat), context(game, req.id))
                assert answer.payload is not None
                if req.decision == "attack" and answer.payload["target"] is not None:
                    mine = game.view(req.seat).private["my_elite"]
                    assert answer.payload["target"] != mine
                game.submit(req.id, answer.payload)


@pytest.mark.parametrize(
    ("rules", "seats", "expected"),
    [
        ({}, [{"seat": 17}], "seat[1].seat: "),
        ({}, [{"seat": 1}, {"seat": 2, "hp": 2}], "seat[2].hp: hp must be an integer"),
        ({}, [{"seat": 1}, {"seat": 2, "hp": 4.0}], "seat[2].hp: Input should be a valid integer"),
        ({"hp": 5.0}, [], "rules.hp: Input should be a valid integer (got 5.0)"),
        ({"hp": True}, [], "rules.hp: Input should be a valid integer (got True)"),
        ({"day_limit": 3.0}, [], "rules.day_limit: Input should be a valid integer (got 3.0)"),
    ],
)
def test_config_errors_count_seat_tables_from_one_and_want_integers(
    rules: dict[str, Any], seats: list[dict[str, Any]], expected: str
) -> None:
    raw = {"variant": "four_factions", "rules": rules, "seat": seats}
    with pytest.raises(ConfigError) as err:
        parse_config(raw)
    assert str(err.value).startswith(expected)
