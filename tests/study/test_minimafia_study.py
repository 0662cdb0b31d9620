"""The Mini-Mafia pipeline end to end: an i3 study (every role-to-contestant
assignment) played by two baseline bots, and its `minimafia` figures in
`sandbox study --json`. The table is Mini-Mafia's own (configs/minimafia.toml):
four seats, one werewolf, one seer, two villagers, the first night fixed
(WW-1 small_table, WW-5 first_night), one day."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app

GAME = """variant = "werewolf"
name = "minimafia"
[rules]
small_table = true
players = 4
werewolves = 1
seers = 1
doctors = 0
seer_reveals = "role"
first_night = "fixed"
day_limit = 1
[default_agent]
kind = "baseline"
[run]
out = "out"
"""

STUDY = """name = "mm"
game = "game.toml"
schedule = "i3"
games_per_cell = 2
seed = 5
out = "out"
[[contestant]]
name = "bot1"
kind = "baseline"
[[contestant]]
name = "bot2"
kind = "baseline"
"""


@pytest.mark.slow
def test_an_i3_study_fits_mini_mafias_model(tmp_path: Path) -> None:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    result = CliRunner().invoke(app, ["study", str(tmp_path / "study.toml"), "--json", "--quiet"])
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["finished"] == 2**3 * 2  # 8 line-ups × 2 games
    mm = found["minimafia"]
    assert mm["games"] == 16
    for row in mm["by_contestant"].values():
        assert row["games"] == {"mafioso": 8, "detective": 8, "town": 8}
        assert row["m_ci95"][0] <= row["m"] <= row["m_ci95"][1]
    cv = mm["cross_validation"]
    assert cv["folds"] == 5 and cv["brier"]["coin"] == 0.25
