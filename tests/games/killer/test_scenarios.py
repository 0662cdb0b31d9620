"""Every KG-12/KG-10/KG-13 termination reason, reached by a scenario config run
through the real path: load_config → build_agents → Runner."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sandbox.core.game import Game
from sandbox.core.variant import Outcome
from sandbox.session.gamefile import load_config
from sandbox.session.runner import Runner
from sandbox.session.seating import build_agents

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def run(path: Path, seed: int | None = None) -> tuple[Game, Outcome, Runner]:
    loaded = load_config(path)
    game_seed = seed if seed is not None else (loaded.file.seed or 0)
    game = Game.new(loaded.variant, loaded.game_config, game_seed)
    agents = build_agents(loaded, game.roles(), game_seed)
    runner = Runner(game, agents, abort_share=None)
    outcome = asyncio.run(runner.run())
    return game, outcome, runner


def results_by_role(game: Game, outcome: Outcome) -> dict[str, set[str]]:
    by_role: dict[str, set[str]] = {}
    for seat, result in outcome.results.items():
        by_role.setdefault(game.roles()[seat], set()).add(result)
    return by_role


@pytest.mark.rule("KG-10", "KG-12", "KG-13")
@pytest.mark.parametrize(
    ("scenario", "reason", "killer", "police", "civilian", "last_day"),
    [
        ("police_eliminated", "police_eliminated", "win", "lose", "lose", 3),
        ("killers_eliminated", "killers_eliminated", "lose", "win", "win", 3),
        ("civilians_eliminated", "civilians_eliminated", "draw", "draw", "draw", 3),
        ("surrender", "surrender", "win", "lose", "lose", 2),
        ("forced_draw", "forced_draw", "draw", "draw", "draw", 1),
        ("day_limit", "day_limit", "draw", "draw", "draw", 2),
    ],
)
def test_scenario_reaches_its_termination_reason(
    scenario: str, reason: str, killer: str, police: str, civilian: str, last_day: int
) -> None:
    game, outcome, runner = run(CONFIGS / "scenarios" / f"killer_{scenario}.toml")
    assert outcome.reason == reason
    assert results_by_role(game, outcome) == {
        "killer": {killer},
        "police": {police},
        "civilian": {civilian},
    }
    assert game.state.day == last_day
    assert game.events[-1].kind == "core.game_ended"
    # Nothing happens after the deciding event (KG-12: checked after every death).
    assert game.events[-2].kind in {
        "killer.dawn",
        "killer.voted_out",
        "killer.conceded",
        "killer.forced_draw",
        "killer.day_limit",
        "core.step",
    }
    assert runner.stats.fallback_count("invalid") == 0


@pytest.mark.rule("KG-12")
def test_police_elimination_at_dawn_ends_before_last_words() -> None:
    game, _, _ = run(CONFIGS / "scenarios" / "killer_police_eliminated.toml")
    spoken = [e.seat for e in game.events if e.kind == "killer.last_words"]
    assert spoken == [4, 5]  # seat 6 died last: the game ended at once


@pytest.mark.rule("KG-1", "KG-11", "KG-12")
@pytest.mark.parametrize("players", [11, 12, 16])
def test_baseline_configs_play_to_an_end_without_fallbacks(players: int) -> None:
    for seed in range(3):
        _, outcome, runner = run(CONFIGS / f"killer_{players}.toml", seed)
        assert outcome.reason in {
            "killers_eliminated",
            "police_eliminated",
            "civilians_eliminated",
            "surrender",
            "forced_draw",
            "day_limit",
        }
        assert runner.stats.fallback_count() == 0
