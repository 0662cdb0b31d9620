"""The one "each game once" gatherer: which copy of a game is read, what counts
as a duplicate, and what is skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sandbox.transcript import TranscriptError, read_game
from sandbox.transcript.identity import each_game_once


def transcript(path: Path, seed: int, finished: bool, study: bool = True) -> Path:
    header: dict[str, Any] = {"type": "header", "schema": 1, "variant": "killer", "seed": seed}
    if study:
        header["study"] = {"name": "s", "cell": "c"}
    lines = [header]
    if finished:
        lines.append({"type": "outcome", "reason": "hand", "results": {}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_the_finished_copy_is_read_and_the_others_are_duplicates(tmp_path: Path) -> None:
    cut = transcript(tmp_path / "a" / "g1.jsonl", 1, finished=False)
    done = transcript(tmp_path / "b" / "g1.jsonl", 1, finished=True)
    other = transcript(tmp_path / "a" / "g2.jsonl", 2, finished=True)
    found = each_game_once([tmp_path], name)
    assert found.games == [name(done), name(other)]  # where each game is first found
    assert [d.path for d in found.duplicates] == [cut] and found.skipped == []
    stats_order = each_game_once([tmp_path], name, finished_first=True)
    assert stats_order.games == [name(other), name(done)]


def test_a_copy_that_cannot_be_read_gives_way_to_the_next(tmp_path: Path) -> None:
    bad = transcript(tmp_path / "a" / "g1.jsonl", 1, finished=True)
    good = transcript(tmp_path / "b" / "g1.jsonl", 1, finished=False)

    def read(path: Path) -> str:
        if path == bad:
            raise TranscriptError(f"{path}: broken")
        return name(path)

    found = each_game_once([tmp_path], read)
    assert found.games == [name(good)] and found.duplicates == []
    assert found.skipped == [(str(bad), "broken")]


def test_games_without_identity_count_once_per_file_name(tmp_path: Path) -> None:
    run = transcript(tmp_path / "a" / "run.jsonl", 1, finished=True, study=False)
    (tmp_path / "b").mkdir()
    shutil.copy(run, tmp_path / "b" / "run.jsonl")
    transcript(tmp_path / "a" / "other.jsonl", 1, finished=True, study=False)
    found = each_game_once([tmp_path, run], name)
    # a copy in another folder, and the same file named twice
    assert found.games == ["a/other.jsonl", "a/run.jsonl"] and len(found.duplicates) == 2


def test_files_that_are_not_transcripts_are_skipped_each(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.jsonl").write_text("junk\n", encoding="utf-8")
    found = each_game_once([tmp_path], read_game)
    assert found.games == [] and found.duplicates == []
    assert [why for _, why in found.skipped] == [
        "not a transcript (first line is not a header)"
    ] * 2
