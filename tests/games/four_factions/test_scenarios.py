"""FF-23: every line of the source's duel tables, played through the public
engine (TOML scenario -> agents -> Runner -> events) and checked strike by strike
against the source's own wording, restated below as data."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.games.four_factions.events import DuelResolved
from sandbox.play.gamefile import LoadedConfig, load_config
from sandbox.play.runner import Runner
from sandbox.play.seating import build_agents

SCENARIOS = sorted((Path(__file__).parents[3] / "configs" / "scenarios").glob("ff_duel_*.toml"))

# The source's tables (seeds/four_factions.zh.txt), as (weapon, struck shield) -> effect:
# e.g. "持有剪刀…击杀携带防布盾牌的…；对携带防石头盾牌的…造成轻伤；对携带防剪刀盾牌的…攻击无效"
SOURCE_EFFECT = {
    ("scissors", "anti-paper"): "kill",
    ("scissors", "anti-rock"): "wound",
    ("scissors", "anti-scissors"): "none",
    ("rock", "anti-scissors"): "kill",
    ("rock", "anti-paper"): "wound",
    ("rock", "anti-rock"): "none",
    ("paper", "anti-rock"): "kill",
    ("paper", "anti-scissors"): "wound",  # FF-23: the table, not the source's typo
    ("paper", "anti-paper"): "none",
}
ALL = tuple(SOURCE_EFFECT)
KILLS = tuple(k for k, v in SOURCE_EFFECT.items() if v == "kill")
# Which source lines each table states: (striker kind, struck kind, first|back) -> lines.
REQUIRED = {
    ("regular", "regular", "first"): ALL,  # "无视 / 单杀" (+ wound ruling)
    ("regular", "regular", "back"): KILLS,  # "能够反杀"
    ("elite", "regular", "first"): KILLS,  # the elite kills the regular its weapon beats
    ("regular", "elite", "back"): ALL,  # the regular's strike back on each elite shield
    ("regular", "elite", "first"): ALL,  # 秒杀 / 轻伤 / 无效
    ("elite", "regular", "back"): ALL,  # the elite's chosen weapon on each regular
    ("elite", "elite", "first"): ALL,
}


def _run(loaded: LoadedConfig) -> Game:
    seed = loaded.file.seed or 0
    game = Game.new(loaded.variant, loaded.game_config, seed)
    agents = build_agents(loaded, game.roles(), seed)
    asyncio.run(Runner(game, agents, abort_share=None).run())
    return game


def _loadouts(loaded: LoadedConfig) -> dict[int, tuple[str, str]]:
    out = {}
    for spec in loaded.file.agent:
        for entry in spec.decisions:
            if entry.get("decision") == "loadout":
                assert spec.seats is not None
                out[spec.seats[0]] = (entry["weapon"], entry["shield"])
    return out


def _kit(game: Game, loadouts: dict[int, tuple[str, str]], seat: int) -> tuple[str, str, str]:
    """(kind, weapon, shield) of a seat on night 4, from the scenario file."""
    if game.state.elite[seat]:
        return ("elite", *loadouts[seat])
    weapon = game.state.weapon[seat]
    return ("regular", weapon, f"anti-{weapon}")


def _expected(att: tuple[str, str, str], dfn: tuple[str, str, str], hp: int) -> list[Any]:
    first = SOURCE_EFFECT[(att[1], dfn[2])]
    strikes = [first]
    if first != "kill":
        strikes.append(SOURCE_EFFECT[(dfn[1], att[2])])
    return strikes


@pytest.mark.rule("FF-21", "FF-22", "FF-23")
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_duels_follow_the_source_tables(path: Path) -> None:
    loaded = load_config(path)
    game = _run(loaded)
    duels = [e for e in game.events if isinstance(e, DuelResolved)]
    scripted = [
        s for s in loaded.file.agent if any(d.get("decision") == "attack" for d in s.decisions)
    ]
    assert len(duels) == len(scripted) > 0
    loadouts = _loadouts(loaded)
    for duel in duels:
        att = _kit(game, loadouts, duel.attacker)
        dfn = _kit(game, loadouts, duel.defender)
        got = [s["effect"] for s in duel.strikes]
        assert got == _expected(att, dfn, 3), (path.stem, duel)
    assert game.outcome() is not None and game.outcome().reason == "day_limit"  # type: ignore[union-attr]


@pytest.mark.rule("FF-23")
def test_scenarios_cover_every_source_line() -> None:
    covered: set[tuple[str, str, str, str, str]] = set()
    for path in SCENARIOS:
        loaded = load_config(path)
        game = _run(loaded)
        loadouts = _loadouts(loaded)
        for duel in (e for e in game.events if isinstance(e, DuelResolved)):
            kits = {duel.attacker: _kit(game, loadouts, duel.attacker)}
            kits[duel.defender] = _kit(game, loadouts, duel.defender)
            for i, s in enumerate(duel.strikes):
                striker, struck = kits[int(s["striker"])], kits[int(s["struck"])]
                order = "first" if i == 0 else "back"
                covered.add((striker[0], struck[0], order, s["weapon"], struck[2]))
    missing = [
        (*key, *line)
        for key, lines in REQUIRED.items()
        for line in lines
        if (*key, *line) not in covered
    ]
    assert not missing
