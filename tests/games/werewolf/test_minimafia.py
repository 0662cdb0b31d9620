"""Mini-Mafia's two rulings (issue 39, item 5), both off by default: a small
table (WW-1 ``small_table``: 4 or 5 seats) and a fixed first night (WW-5
``first_night = "fixed"``: the werewolf's victim a seeded villager, the seer's
check a werewolf); and the preset configs/minimafia.toml, played by bots and
read as Mini-Mafia games by the analysis (sandbox/analysis/minimafia.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from sandbox.analysis.load import load_games
from sandbox.analysis.minimafia import lineup_of
from sandbox.cli.main import app
from sandbox.core.game import Game
from sandbox.session.gamefile import load_config
from tests.games.werewolf.helpers import WW, decisions, new_game, night, of_kind, play_bots

PRESET = Path(__file__).parents[3] / "configs" / "minimafia.toml"
MINI: dict[str, Any] = {
    "small_table": True,
    "players": 4,
    "werewolves": 1,
    "seers": 1,
    "doctors": 0,
    "first_night": "fixed",
}


def test_ww1_small_table_allows_four_or_five_seats_and_is_off_by_default() -> None:
    assert WW.parse_config({}).small_table is False
    with pytest.raises(ValidationError, match=r"6-16 seats \(WW-1\); got 4; small_table"):
        WW.parse_config({"players": 4, "werewolves": 1, "doctors": 0})
    for players in (4, 5):
        config = WW.parse_config({**MINI, "players": players, "first_night": "free"})
        assert config.players == players
    with pytest.raises(ValidationError, match=r"4-16 seats \(WW-1\); got 3"):
        WW.parse_config({**MINI, "players": 3})
    with pytest.raises(ValidationError, match="WW-19"):  # two werewolves against two
        WW.parse_config({**MINI, "werewolves": 2})
    lineup = Game.new(WW, WW.parse_config(MINI), 1).events[0]
    assert (lineup.players, lineup.werewolves, lineup.seers, lineup.villagers) == (4, 1, 1, 2)
    assert lineup.rulings["small_table"] is True  # WW-4: a ruling set is announced


def test_ww5_by_default_night_one_asks_the_seer_the_doctor_and_the_pack() -> None:
    game = new_game()
    assert WW.parse_config({}).first_night == "free"
    assert decisions(game) == {"protect", "inspect"}


def test_ww5_ww7_ww10_a_fixed_first_night_asks_nobody_and_kills_a_villager() -> None:
    victims = set()
    for seed in range(12):
        game = Game.new(WW, WW.parse_config({**MINI, "day_limit": 2}), seed)
        roles = game.roles()
        wolf = next(s for s, r in roles.items() if r == "werewolf")
        seer = next(s for s, r in roles.items() if r == "seer")
        asked = {e.decision for e in game.events if e.kind == "core.decision"}
        assert not asked  # nobody decided anything yet
        (check,) = of_kind(game.events, "werewolf.seer_result")
        assert (check.seer, check.seat, check.result) == (seer, wolf, "werewolf")
        (kill,) = of_kind(game.events, "werewolf.kill_chosen")
        assert roles[kill.target] == "villager" and kill.how == "fixed_night"
        assert kill.visibility().seats == {wolf}  # the pack learns its target (WW-7)
        (dawn,) = of_kind(game.events, "werewolf.dawn")
        assert dawn.victim == kill.target
        assert not of_kind(game.events, "werewolf.protection")  # nobody protects
        assert decisions(game) == {"speech"}  # day 1 opens as ever
        victims.add(kill.target)
        assert game.view(seer).private["inspections"] == [
            {"night": 1, "seat": wolf, "result": "werewolf"}
        ]
    assert len(victims) > 1  # the villager is drawn by the seed, not fixed by seat


def test_ww5_only_the_first_night_is_fixed() -> None:
    rules = {"first_night": "fixed", "wolf_all_abstain": "nobody", "all_abstain": "nobody"}
    game = new_game(**rules)
    assert of_kind(game.events, "werewolf.kill_chosen")[0].how == "fixed_night"
    while decisions(game) - {"protect", "inspect", "kill"}:  # day 1: pass and abstain
        pending = game.pending()
        for request in pending:
            payload = {"target": None} if request.decision == "vote" else {"speech": ""}
            game.submit(request.id, payload)
    assert decisions(game) == {"protect", "inspect"}  # night 2 asks as ever
    night(game, kill=5)
    assert of_kind(game.events, "werewolf.kill_chosen")[-1].how == "votes"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_ww5_the_rules_text_states_a_fixed_first_night(language: str) -> None:
    fixed = WW.rules_text(WW.parse_config(MINI), language)
    free = WW.rules_text(WW.parse_config({**MINI, "first_night": "free"}), language)
    ww5 = next(line for line in fixed.splitlines() if line.startswith("WW-5"))
    marker = {"en": "Night 1 is fixed", "zh": "第1夜是固定的"}[language]
    assert marker in ww5 and marker not in free


def test_ww1_ww5_ww19_the_minimafia_preset_is_decided_by_its_one_day() -> None:
    loaded = load_config(PRESET)
    assert loaded.variant.name == "werewolf"
    config: Any = loaded.game_config
    assert (config.players, config.werewolves, config.seers, config.doctors) == (4, 1, 1, 0)
    assert (config.first_night, config.seer_reveals, config.day_limit) == ("fixed", "role", 1)
    endings = set()
    for seed in range(20):
        game = Game.new(WW, config, seed)
        play_bots(game, seed)
        assert len(of_kind(game.events, "werewolf.exiled")) == 1  # one vote decides it
        assert not of_kind(game.events, "werewolf.night")[1:]  # no second night
        endings.add(game.outcome().reason)  # type: ignore[union-attr]
    assert endings == {"werewolves_eliminated", "werewolf_parity"}


def test_ww1_ww5_the_analysis_reads_a_minimafia_game(tmp_path: Path) -> None:
    preset = PRESET.read_text(encoding="utf-8") + f'\n[run]\nout = "{tmp_path / "out"}"\n'
    game_file = tmp_path / "minimafia.toml"
    game_file.write_text(preset, encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(game_file), "--seed", "3", "--json"])
    assert result.exit_code == 0, result.stderr
    path = Path(json.loads(result.stdout)["transcript"])
    (game,) = load_games([path.parent]).games
    found = lineup_of(game)
    assert found is not None
    assert found.mafia_won == (game.results[found_seat(game, "werewolf")] == "win")


def found_seat(game: Any, role: str) -> int:
    return next(int(s) for s, r in game.roles.items() if r == role)
