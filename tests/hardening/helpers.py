"""Transcripts to attack: a finished bot game and line-level editing helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.play import play_game
from sandbox.play.gamefile import parse_config

Line = dict[str, Any]


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def bot_game(folder: Path, seed: int = 3) -> Path:
    """A finished 11-player Killer game of baseline bots."""
    loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
    record = play_game(loaded, seed, folder)
    assert record.path is not None
    return record.path


def read_lines(path: Path) -> list[Line]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, lines: list[Any]) -> Path:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def renumber(lines: list[Line]) -> list[Line]:
    """Event seq numbers in file order (so an edit is not caught by a numbering check)."""
    seq = 0
    for line in lines:
        if line.get("type") == "event":
            line["seq"] = seq
            seq += 1
    return lines


def one_error_line(result: Any) -> bool:
    """Exit 2 and exactly one line on stderr, starting with 'error:', no traceback."""
    lines = result.stderr.splitlines()
    return (
        result.exit_code == 2
        and len(lines) == 1
        and lines[0].startswith("error: ")
        and "Traceback" not in result.output
    )
