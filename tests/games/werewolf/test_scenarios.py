"""Scenario game files with fixed roles (configs/scenarios/ww_*.toml), run through
the real path: load_config -> build_agents -> Runner. Each pins an ending and the
rules on its way (WW-7..WW-9, WW-12, WW-15, WW-17..WW-21, WW-23, WW-24)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sandbox.core.game import Game
from sandbox.core.variant import Outcome
from sandbox.session.gamefile import load_config
from sandbox.session.runner import Runner
from sandbox.session.seating import build_agents

SCENARIOS = Path(__file__).resolve().parents[3] / "configs" / "scenarios"


def run(name: str) -> tuple[Game, Outcome, Runner]:
    loaded = load_config(SCENARIOS / f"ww_{name}.toml")
    seed = loaded.file.seed or 0
    game = Game.new(loaded.variant, loaded.game_config, seed)
    agents = build_agents(loaded, game.roles(), seed)
    runner = Runner(game, agents, abort_share=None)
    return game, asyncio.run(runner.run()), runner


def kinds(game: Game, kind: str) -> list[object]:
    return [e for e in game.events if e.kind == kind]


def by_team(game: Game, outcome: Outcome) -> dict[str, set[str]]:
    teams: dict[str, set[str]] = {}
    for seat, result in outcome.results.items():
        teams.setdefault(game.variant.research.side_of(game.roles()[seat]), set()).add(result)
    return teams


@pytest.mark.parametrize(
    ("name", "reason", "werewolves", "village", "last_day"),
    [
        ("village_wins", "werewolves_eliminated", "lose", "win", 2),
        ("werewolves_win", "werewolf_parity", "win", "lose", 4),
        ("day_limit", "day_limit", "draw", "draw", 2),
        ("doctor_saves", "day_limit", "draw", "draw", 1),
        ("arena_majority", "day_limit", "draw", "draw", 1),
    ],
)
def test_ww17_to_ww21_each_scenario_reaches_its_ending(
    name: str, reason: str, werewolves: str, village: str, last_day: int
) -> None:
    game, outcome, runner = run(name)
    assert outcome.reason == reason
    assert by_team(game, outcome) == {"werewolves": {werewolves}, "village": {village}}
    assert game.state.day == last_day
    # WW-20: the roles are announced last, then the result.
    assert [e.kind for e in game.events[-3:]] == [
        "werewolf.roles_revealed",
        "core.step",
        "core.game_ended",
    ]
    assert runner.stats.fallback_count("invalid") == 0


def test_ww18_ww20_the_village_wins_dead_or_alive() -> None:
    game, outcome, _ = run("village_wins")
    assert [e.seat for e in kinds(game, "werewolf.exiled")] == [1, 2]  # type: ignore[attr-defined]
    assert 5 not in game.state.alive and outcome.results[5] == "win"


def test_ww19_parity_is_checked_at_dawn_after_the_nights_resolution() -> None:
    game, _, _ = run("werewolves_win")
    dawns = kinds(game, "werewolf.dawn")
    assert [d.victim for d in dawns] == [5, 6, 7, 8]  # type: ignore[attr-defined]
    assert game.events[-4].kind == "werewolf.dawn"  # WW-11: announced, then the end


def test_ww9_the_scenario_save_is_private_and_the_morning_quiet() -> None:
    game, _, _ = run("doctor_saves")
    (saved,) = kinds(game, "werewolf.saved")
    assert saved.visibility().seats == frozenset({4})
    (dawn,) = kinds(game, "werewolf.dawn")
    assert dawn.victim is None and dawn.revealed is None  # type: ignore[attr-defined]
    (result,) = kinds(game, "werewolf.seer_result")
    assert (result.seat, result.result) == (1, "werewolf")  # type: ignore[attr-defined]


def test_ww24_arena_scenario_bids_votes_sealed_and_exiles_by_majority_unrevealed() -> None:
    game, _, _ = run("arena_majority")
    (turn,) = kinds(game, "werewolf.pack_turn")
    assert turn.mode == "one_wolf" and len(turn.order) == 1  # type: ignore[attr-defined]
    assert len(kinds(game, "werewolf.floor")) == 8  # turns = 8 (WW-12 bidding)
    (ballots,) = kinds(game, "werewolf.ballots")
    assert set(ballots.drawn) == {1, 2}  # type: ignore[attr-defined]  # WW-23 draws
    (exiled,) = kinds(game, "werewolf.exiled")
    assert (exiled.seat, exiled.revealed) == (1, None)  # type: ignore[attr-defined]
