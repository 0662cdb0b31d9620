"""Human-facing text says things in words: no Python reprs, no raw event dumps,
no line said twice, and error messages that name the thing once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.cli.stats import latency_text, plural
from sandbox.transcript import read_transcript
from sandbox.viewer.timeline import build_timeline
from tests.cli.conftest import ToyFile

REPR = re.compile(r"\{'|\['|\('|': |=\{|=\[|None\b")


def invoke(*args: str) -> Any:
    # wide enough that rich never wraps a line in the middle of a speech
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


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


KILLER = """variant = "killer"
seed = 1
[run]
out = "{out}"
"""


def killer_game(tmp_path: Path) -> tuple[Path, Any]:
    """A baseline Killer game played with the live stream on; its config and the run."""
    config = tmp_path / "k.toml"
    config.write_text(KILLER.format(out=tmp_path / "out"), encoding="utf-8")
    return config, invoke("run", str(config))


def transcript_of(tmp_path: Path) -> Path:
    (path,) = (tmp_path / "out").glob("killer-*.jsonl")
    return path


def speeches(path: Path) -> list[str]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    kinds = ("killer.speech", "killer.last_words")
    return [x["data"]["text"] for x in lines if x.get("kind") in kinds]


def test_live_stream_says_each_speech_once_and_the_outcome_in_words(tmp_path: Path) -> None:
    _, result = killer_game(tmp_path)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "core.game_ended" not in out and "results={" not in out
    said = speeches(transcript_of(tmp_path))
    assert said
    lines = out.splitlines()
    for text in set(said):
        # once per time it was said: the announcement, never also the decision line
        assert sum(1 for line in lines if line.endswith(f': "{text}"')) == said.count(text)
    assert not re.search(r"Seat \d+ speaks\.", out)  # no decision line for a speech
    assert re.search(r"Seat \d+ wants seat \d+ killed\.", out)  # sealed choices keep theirs


def test_referee_view_says_each_speech_once(tmp_path: Path) -> None:
    killer_game(tmp_path)
    path = transcript_of(tmp_path)
    result = invoke("view", str(path))
    assert result.exit_code == 0, result.stderr
    flat = " ".join(result.stdout.split())
    assert "core.game_ended" not in flat and "Outcome:" in flat
    assert not re.search(r"Seat \d+ speaks\.", flat)
    assert re.search(r"#\d+ · \w+, baseline bot Seat \d+ votes for seat \d+\.", flat)


def test_seat_view_card_is_words_and_shows_its_own_row(tmp_path: Path) -> None:
    killer_game(tmp_path)
    path = transcript_of(tmp_path)
    roles = json.loads(path.read_text().splitlines()[0])["roles"]
    police = next(int(s) for s, r in roles.items() if r == "police")
    result = invoke("view", str(path), "--seat", str(police))
    assert result.exit_code == 0, result.stderr
    card = result.stdout.split("Your card:")[1].split("Setup")[0]
    assert "checks: night 1, suspect" in " ".join(card.split())
    assert not REPR.search(card), card
    # the game is over: every role is revealed, the seat's own agent too, no one else's
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    mine = next(r for r in rows if r.split("│")[1].strip() == str(police))
    assert "police" in mine and "baseline" in mine
    assert all(roles[r.split("│")[1].strip()] in r for r in rows)
    others = [r for r in rows if r is not mine]
    assert all("baseline" not in r for r in others)


def test_unfinished_seat_view_shows_only_its_own_role(tmp_path: Path) -> None:
    killer_game(tmp_path)
    path = transcript_of(tmp_path)
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    roles = json.loads(lines[0])["roles"]
    rows = build_timeline(read_transcript(cut), 3).outcome_rows
    assert {row.seat: row.role for row in rows if row.role is not None} == {3: roles["3"]}
    assert {row.seat: row.agent for row in rows if row.agent is not None} == {3: "baseline bot"}
