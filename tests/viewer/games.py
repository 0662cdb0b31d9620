"""Seeded games for the viewer tests, played through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.session import fork_points
from sandbox.transcript import Transcript, read_transcript

GAME = """variant = "{variant}"
seed = {seed}
[default_agent]
kind = "{kind}"
[run]
out = "{out}"
"""


def played_transcript(
    tmp_path: Path, variant: str, seed: int, kind: str = "baseline"
) -> Transcript:
    """A game of ``variant`` whose every seat is a ``kind`` agent (baseline bots
    unless told), loaded."""
    config = tmp_path / f"{variant}-{kind}-{seed}.toml"
    game = GAME.format(variant=variant, seed=seed, kind=kind, out=tmp_path / "out")
    config.write_text(game, "utf-8")
    result = CliRunner().invoke(app, ["run", str(config), "--json"])
    assert result.exit_code == 0, result.stderr
    return read_transcript(Path(json.loads(result.stdout)["transcript"]))


def with_speech(tmp_path: Path, transcript: Transcript, text: str, name: str) -> Transcript:
    """A copy of a Killer transcript whose first day speech says ``text`` (the page
    renders what the file says; it is never replayed)."""
    lines = transcript.path.read_text("utf-8").splitlines()
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if obj.get("kind") == "killer.speech":
            obj["data"]["text"] = text
            lines[i] = json.dumps(obj, ensure_ascii=False)
            break
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return read_transcript(path)


def cut(tmp_path: Path, transcript: Transcript, about: int, name: str) -> Transcript:
    """The game up to the step boundary nearest below event ``about``, unfinished."""
    events = max(p for p in fork_points(transcript.events) if p <= about)
    kept: list[str] = []
    count = 0
    for line in transcript.path.read_text("utf-8").splitlines():
        obj = json.loads(line)
        if obj["type"] == "event":
            if count == events:
                break
            count += 1
        if obj["type"] != "outcome":
            kept.append(line)
    path = tmp_path / name
    path.write_text("\n".join(kept) + "\n", "utf-8")
    return read_transcript(path)
