"""``sandbox study --backend ray`` on the module's local cluster: the same
ratings, win rates and games as the study played on this machine; a re-run
adds no game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from tests.study.test_study_run import study_file

pytestmark = pytest.mark.usefixtures("cluster")


def run(path: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["study", str(path), "--json", *extra])
    assert result.exit_code == 0, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


def test_a_study_on_ray_equals_the_study_played_here(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    here = run(study_file(tmp_path / "a", per_cell=1))
    there = run(study_file(tmp_path / "b", per_cell=1), "--backend", "ray")
    for key in ("planned", "finished", "played_now", "ratings", "win_rates"):
        assert there[key] == here[key], key
    assert there["finished"] == there["planned"] > 0
    again = run(study_file(tmp_path / "b", per_cell=1), "--backend", "ray")
    assert again["played_now"] == 0 and again["already_played"] == there["planned"]


def test_study_refuses_ray_options_without_ray(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["study", str(study_file(tmp_path)), "--limit", "openai=2"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --limit/--rpm needs --backend ray")
