"""A reviewer's rerun: the same study played twice into fresh folders gives the
same ratings, byte for byte, and the walk-through of docs/studies.md (section 6) shows
what the command prints today."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app

ROOT = Path(__file__).resolve().parents[2]

SMALL = """name = "rerun"
game = "{game}"
schedule = "matrix"
games_per_cell = 1
seed = 100
jobs = 2

[[contestant]]
name = "random"
kind = "llm"
model = "fake/legal-random"
timeout_s = 10

[[contestant]]
name = "fenced"
kind = "llm"
model = "fake/legal-fenced"
timeout_s = 10

[[contestant]]
name = "bot"
kind = "baseline"
"""

RATED = ("ratings", "ratings_by_role", "nash", "ratings_without_failures", "frontier")


def study(path: Path, out: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["study", str(path), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


@pytest.mark.slow
def test_two_runs_into_fresh_folders_give_identical_ratings(tmp_path: Path) -> None:
    path = tmp_path / "rerun.toml"
    path.write_text(SMALL.format(game=ROOT / "configs" / "killer_fake.toml"), encoding="utf-8")
    first = study(path, tmp_path / "one")
    second = study(path, tmp_path / "two")
    assert first["finished"] == second["finished"] == 6
    for key in RATED:
        assert json.dumps(first[key], sort_keys=True) == json.dumps(second[key], sort_keys=True)
    assert "unavailable" not in first["nash"]


def doc_leaderboard() -> list[list[str]]:
    """The leaderboard rows the walk-through shows (docs/studies.md, section 6)."""
    text = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    walk = text.split("## 6. Walk-through", 1)[1].split("\n## ", 1)[0]
    block = walk.split("```sh", 1)[1].split("```", 1)[0]
    return table_rows(block)


def table_rows(printed: str) -> list[list[str]]:
    """The cells of each leaderboard row (the lines between the table's rules)."""
    lines = printed.split("leaderboard", 1)[1].split("win rate by side", 1)[0].splitlines()
    rows = []
    for line in lines:
        if line.startswith("│"):
            rows.append([re.sub(r"\s+", " ", c).strip() for c in line.strip("│").split("│")])
    return rows


@pytest.mark.slow
def test_the_walk_through_numbers_are_what_the_command_prints(tmp_path: Path) -> None:
    # the walk-through's command on the fake provider (12 games), into a fresh folder
    config = ROOT / "configs" / "study_fake.toml"
    result = CliRunner().invoke(app, ["study", str(config), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.stderr
    printed = table_rows(result.stdout)
    assert printed and printed == doc_leaderboard()
    assert "12 of 12 games finished" in result.stdout
