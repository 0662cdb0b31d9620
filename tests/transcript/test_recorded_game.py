"""The recorded game is one type, ``Transcript``, with one family of readers;
opening a file that is not a transcript raises one TranscriptError, one line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sandbox
from sandbox.analysis.load import load_games
from sandbox.core.events import Event
from sandbox.session import PlayResult, replay_transcript
from sandbox.session.play import GameRecord
from sandbox.transcript import (
    Transcript,
    TranscriptError,
    load_transcript,
    read_game,
    read_transcript,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "docs" / "sample" / "killer-sample.jsonl"  # written before this change
READERS: list[Callable[[Path], Any]] = [read_transcript, read_game, load_transcript]


def header_line() -> str:
    return SAMPLE.read_text(encoding="utf-8").splitlines()[0]


def bad_files(folder: Path) -> dict[str, Path]:
    """One file (or folder) per way of not being a transcript."""
    folder.mkdir(parents=True, exist_ok=True)
    header = header_line()
    made = {
        "missing": folder / "missing.jsonl",
        "a folder": folder / "a-folder.jsonl",
        "not JSON Lines": folder / "binary.jsonl",
        "empty": folder / "empty.jsonl",
        "header cut short": folder / "cut-header.jsonl",
        "not a transcript": folder / "other.jsonl",
        "a bad middle line": folder / "middle.jsonl",
    }
    made["a folder"].mkdir()
    made["not JSON Lines"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\nmore\n")
    made["empty"].write_text("", encoding="utf-8")
    made["header cut short"].write_text(header[: len(header) // 2], encoding="utf-8")
    made["not a transcript"].write_text('{"name": "a config"}\n{"x": 1}\n', encoding="utf-8")
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    made["a bad middle line"].write_text(
        "\n".join([lines[0], "{oops", *lines[1:]]) + "\n", encoding="utf-8"
    )
    return made


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.__name__)
def test_every_bad_file_is_one_transcript_error_on_one_line(
    tmp_path: Path, reader: Callable[[Path], Any]
) -> None:
    for why, path in bad_files(tmp_path).items():
        with pytest.raises(TranscriptError) as caught:
            reader(path)
        message = str(caught.value)
        assert "\n" not in message and str(path) in message, (why, message)


def test_another_schema_version_is_refused_by_the_engine_reader_only(tmp_path: Path) -> None:
    header = json.loads(header_line())
    rest = SAMPLE.read_text(encoding="utf-8").splitlines()[1:]
    path = tmp_path / "future.jsonl"
    path.write_text("\n".join([json.dumps({**header, "schema": 99}), *rest]) + "\n", "utf-8")
    for reader in (read_transcript, load_transcript):
        with pytest.raises(TranscriptError, match=r"schema 99.*this sandbox reads schema"):
            reader(path)
    assert read_game(path).finished  # analysis still counts it


def test_the_session_opens_with_the_same_reader_and_error(tmp_path: Path) -> None:
    """The session has no opener of its own (nor the transcript package a second
    name for its reader): a bad file is the transcript's TranscriptError, not a
    SessionError."""
    import sandbox.session
    import sandbox.transcript

    assert not hasattr(sandbox.session, "open_transcript")
    assert not hasattr(sandbox.transcript, "load")
    with pytest.raises(TranscriptError, match="no such transcript file"):
        read_transcript(tmp_path / "missing.jsonl")
    with pytest.raises(TranscriptError, match="is a directory"):
        read_transcript(tmp_path)


def test_both_forms_are_the_one_type_and_agree() -> None:
    engine = read_transcript(SAMPLE)
    rows = read_game(SAMPLE)
    assert type(engine) is type(rows) is Transcript
    assert all(isinstance(e, Event) for e in engine.events)
    assert [e.kind for e in engine.events] == [r["kind"] for r in rows.events]
    assert [e.kind for e in engine.of_kind("core.decision")] == [
        r["kind"] for r in rows.of_kind("core.decision")
    ]
    assert engine.header == rows.header and engine.outcome == rows.outcome
    assert engine.calls == rows.calls and engine.visibility == rows.visibility
    for attribute in ("game_id", "roles", "sides", "contestants", "results", "finished"):
        assert getattr(engine, attribute) == getattr(rows, attribute), attribute
    assert engine.agent_at(1, 0) == rows.agent_at(1, 0) == rows.agents[1]


def test_a_transcript_written_before_still_reads_replays_and_counts() -> None:
    assert replay_transcript(read_transcript(SAMPLE)) is None
    loaded = load_games([SAMPLE])
    assert [game.path for game in loaded.games] == [SAMPLE] and not loaded.skipped


def test_the_result_of_play_keeps_its_old_name() -> None:
    """The result of play keeps its old public name as an alias, not a copy."""
    assert GameRecord is PlayResult is sandbox.PlayResult is sandbox.GameRecord
    assert sandbox.load_transcript is load_transcript


def test_a_torn_last_line_is_not_an_error_in_either_form(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    text = SAMPLE.read_text(encoding="utf-8")
    path.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 20], encoding="utf-8")
    for reader in (read_transcript, read_game):
        game = reader(path)
        assert game.torn_tail and not game.finished
