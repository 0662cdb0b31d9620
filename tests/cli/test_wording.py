"""Human-facing text says things in words: no Python reprs, no raw event dumps,
no line said twice, and error messages that name the thing once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sandbox.cli import app, latency_text, plural
from tests.cli.conftest import ToyFile

REPR = re.compile(r"\{'|\['|\('|': |=\{|=\[|None\b")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def run_json(config: Path, *extra: str) -> dict[str, Any]:
    result = invoke("run", str(config), "--json", *extra)
    assert result.exit_code == 0, result.stderr
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


def test_latency_is_in_seconds_not_a_dict() -> None:
    figures = {"mean": 0.0812, "p50": 0.013, "p95": 0.052, "max": 3.131}
    assert latency_text(figures) == "mean 0.08 s · p50 0.01 s · p95 0.05 s · max 3.13 s"
    assert latency_text(None) == "-"


def test_counts_agree_in_number() -> None:
    assert plural(1, "game") == "1 game" and plural(2, "game") == "2 games"


def test_stats_text_of_one_game_and_a_skipped_file(toy_file: ToyFile, tmp_path: Path) -> None:
    run_json(toy_file())
    junk = tmp_path / "out" / "empty.jsonl"
    junk.write_text("", encoding="utf-8")
    result = invoke("stats", str(tmp_path / "out"))
    assert result.exit_code == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert "1 game" in flat and "1 games" not in flat
    assert "{'" not in flat
    assert "skipped" in flat and flat.count("empty.jsonl") == 1


def test_stats_error_names_the_path_once(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    result = invoke("stats", str(empty))
    assert result.exit_code == 2 and result.stderr.count("empty.jsonl") == 1, result.stderr
