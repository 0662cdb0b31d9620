"""Disk and filesystem faults on a real small filesystem (issue 25, item 2).

A full disk (ENOSPC) or a folder that turns read-only in the middle of a game,
a batch or a study: the run stops with one ``error:`` line (exit 1), every
transcript on disk stays readable (whole lines only, so ``view`` and ``replay``
work), and ``resume`` or re-running the batch/study finishes the work once
there is room, with no game counted twice. The filesystem is a size-limited
tmpfs mounted by the test (tests/hardening/disk.py), not a mock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sandbox.batch.jobs import GameResult
from sandbox.batch.run import jobs_for, run_batch, skip_done
from sandbox.session.gamefile import parse_config
from sandbox.transcript import TranscriptWriteError, TranscriptWriter
from tests.hardening.disk import SmallDisk
from tests.hardening.helpers import invoke, read_lines

BOTS = 'variant = "killer"\nseed = 4\n[rules]\nplayers = 11\n'
FULL = "No space left on device"


def game_file(folder: Path) -> Path:
    path = folder / "bots.toml"
    path.write_text(BOTS, encoding="utf-8")
    return path


def whole_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of the file, which must end with a newline and parse whole."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), f"{path} ends in a torn line"
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def one_fault_line(result: Any, *words: str) -> str:
    lines = result.stderr.splitlines()
    assert result.exit_code == 1, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]
    return str(lines[0])


def readable(path: Path) -> None:
    """``view`` and ``replay`` both read it: whole lines, every event re-refereed."""
    assert invoke("view", str(path)).exit_code == 0
    replay = invoke("replay", str(path))
    assert replay.exit_code == 0 and replay.stdout.startswith("OK"), replay.output


def events_of(path: Path) -> list[dict[str, Any]]:
    return [line for line in read_lines(path) if line["type"] == "event"]


def games_in(folder: Path) -> int:
    stats = invoke("stats", str(folder), "--json")
    assert stats.exit_code == 0, stats.output
    figures = json.loads(stats.stdout)["variants"]["killer"]
    assert figures["unfinished"] == 0
    return int(figures["games"])


# ------------------------------------------------------------------ the writer


@pytest.mark.parametrize("background", [False, True])
def test_a_line_reaches_a_full_disk_whole_or_not_at_all(
    small_disk: SmallDisk, background: bool
) -> None:
    """tmpfs takes the bytes that fit and refuses the rest: the writer cuts the
    part that got out, so the file ends after its last whole line."""
    small_disk.mount("16k")
    path = small_disk.path / "t.jsonl"
    writer = TranscriptWriter(path, background=background)
    writer.header({"variant": "killer", "seed": 1})
    written = 1
    with pytest.raises(TranscriptWriteError, match=FULL):
        for n in range(100):
            writer.call({"seat": 1, "text": f"{n:04d}" + "x" * 997})
            written += 1
        writer.close()  # background: the first failed line is reported here at the latest
    lines = whole_lines(path)
    assert lines[0]["type"] == "header" and all(line["type"] == "call" for line in lines[1:])
    assert [line["text"][:4] for line in lines[1:]] == [f"{n:04d}" for n in range(len(lines) - 1)]
    assert len(lines) <= written  # a queued line after the failure is never written
    with pytest.raises(TranscriptWriteError):  # and no later line either: no gap
        writer.call({"seat": 1, "text": "late"})
    writer.close()
    assert whole_lines(path) == lines


def test_a_transcript_that_got_no_header_is_not_left_behind(small_disk: SmallDisk) -> None:
    small_disk.mount("4k")  # the lock file takes the only page
    path = small_disk.path / "t.jsonl"
    with pytest.raises(TranscriptWriteError, match=FULL), TranscriptWriter(path) as writer:
        writer.header({"variant": "killer", "seed": 1, "pad": "x" * 5000})
    assert sorted(p.name for p in small_disk.path.iterdir()) == []


def test_a_python_game_whose_header_is_refused_keeps_no_file_or_lock(
    small_disk: SmallDisk,
) -> None:
    """The Python API's writer (and the stepped game's) closes itself when the
    header cannot be written: no open file, no held lock, nothing left behind."""
    from sandbox import BaselineAgent, new_game, play_sync

    small_disk.mount("4k")  # the lock file takes the only page
    game = new_game("killer", seed=1, players=11)
    with pytest.raises(TranscriptWriteError, match=FULL):
        play_sync(game, lambda seat, role: BaselineAgent(), transcript=small_disk.path)
    assert sorted(p.name for p in small_disk.path.iterdir()) == []


# --------------------------------------------------------------------- a game


def test_run_on_a_full_disk_stops_and_resume_finishes_the_same_game(
    small_disk: SmallDisk, tmp_path: Path
) -> None:
    config = game_file(tmp_path)
    small_disk.mount("12k")  # an 11-seat bot game needs ~30 kB
    out = small_disk.path / "run"
    line = one_fault_line(invoke("run", str(config), "--out", str(out), "--quiet"), FULL)
    (path,) = out.glob("*.jsonl")
    assert f"sandbox resume {path}" in line
    whole_lines(path)
    readable(path)

    small_disk.resize("1m")  # space is back
    resumed = invoke("resume", str(path), "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert read_lines(path)[-1]["type"] == "outcome"
    readable(path)
    # the same game as one never interrupted
    whole = invoke("run", str(config), "--out", str(tmp_path / "whole"), "--quiet")
    assert whole.exit_code == 0
    (reference,) = (tmp_path / "whole").glob("*.jsonl")
    assert events_of(path) == events_of(reference)


def test_resume_on_a_full_disk_leaves_a_readable_file(
    small_disk: SmallDisk, tmp_path: Path
) -> None:
    config = game_file(tmp_path)
    assert invoke("run", str(config), "--out", str(tmp_path / "g"), "--quiet").exit_code == 0
    (finished,) = (tmp_path / "g").glob("*.jsonl")
    lines = finished.read_text(encoding="utf-8").splitlines()
    small_disk.mount("64k")
    path = small_disk.path / finished.name
    # cut mid-game, the last line torn by a crash
    path.write_text("\n".join(lines[:60]) + "\n" + lines[60][:25], encoding="utf-8")
    filler = small_disk.path / "filler"
    with filler.open("wb", buffering=0) as fh, pytest.raises(OSError):
        while True:
            fh.write(b"\0" * 4096)

    one_fault_line(invoke("resume", str(path), "--quiet"), FULL, str(path))
    assert len(whole_lines(path)) >= 60  # the torn line went, nothing torn came
    readable(path)

    filler.unlink()
    assert invoke("resume", str(path), "--quiet").exit_code == 0
    readable(path)
    assert events_of(path) == events_of(finished)


# ----------------------------------------------------------- batch and study


@pytest.mark.parametrize("in_flight", ["1", "4"])
def test_batch_on_a_full_disk_stops_and_a_rerun_plays_each_game_once(
    small_disk: SmallDisk, tmp_path: Path, in_flight: str
) -> None:
    """In flight: worker processes write through the background line writer."""
    config = game_file(tmp_path)
    small_disk.mount("160k")  # room for ~5 of the 12 games
    out = small_disk.path / "batch"
    args = ["batch", str(config), "--games", "12", "--out", str(out), "--quiet"]
    args += ["--games-in-flight", in_flight]
    line = one_fault_line(invoke(*args), FULL, "run the same command again")
    paths = sorted(out.glob("*.jsonl"))
    assert 0 < len(paths) < 12
    for path in paths:
        whole_lines(path)
        readable(path)

    small_disk.resize("2m")
    again = invoke(*args, "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["finished"] == 12 and report["failed"] == []
    assert int(line.split(" of 12 games finished")[0].rsplit(" ", 1)[1]) == report["already_played"]
    assert len(list(out.glob("*.jsonl"))) == 12  # interrupted ones finished in place
    assert games_in(out) == 12


def test_study_on_a_full_disk_stops_and_a_rerun_finishes_it(
    small_disk: SmallDisk, tmp_path: Path
) -> None:
    game_file(tmp_path)
    study = tmp_path / "study.toml"
    study.write_text(
        'name = "full"\ngame = "bots.toml"\ngames_per_cell = 4\nseed = 10\n'
        '[[contestant]]\nname = "base"\nkind = "baseline"\n'
        '[[contestant]]\nname = "rand"\nkind = "random"\n',
        encoding="utf-8",
    )
    small_disk.mount("96k")
    out = small_disk.path / "study"
    one_fault_line(invoke("study", str(study), "--out", str(out), "--quiet"), FULL)
    for path in out.glob("*.jsonl"):
        whole_lines(path)
        readable(path)

    small_disk.resize("2m")
    again = invoke("study", str(study), "--out", str(out), "--quiet", "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["planned"] == report["finished"] == 8 and report["failed"] == []
    assert len(list(out.glob("*.jsonl"))) == 8
    assert games_in(out) == 8


def test_a_folder_turned_read_only_between_games_stops_the_batch(
    small_disk: SmallDisk, tmp_path: Path
) -> None:
    small_disk.mount("2m")
    out = small_disk.path / "b"
    loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
    jobs = jobs_for(loaded, [1, 2, 3, 4], out)
    seen: list[GameResult] = []

    def after(result: GameResult) -> None:
        seen.append(result)
        if len(seen) == 1:
            small_disk.read_only()  # between the first and the second game

    batch = run_batch(jobs, 1, after)
    assert batch.fault is not None and "Read-only file system" in batch.fault
    assert [r.finished for r in batch.results] == [True, False]
    assert len(list(out.glob("*.jsonl"))) == 1

    small_disk.read_only(False)
    todo, done = skip_done(jobs, out)
    assert len(done) == 1 and len(todo) == 3
    assert all(r.finished for r in run_batch(todo, 1, lambda r: None).results)
    assert games_in(out) == 4


@pytest.mark.parametrize("command", ["run", "batch", "study"])
def test_a_read_only_folder_is_one_line(
    small_disk: SmallDisk, tmp_path: Path, command: str
) -> None:
    config = game_file(tmp_path)
    study = tmp_path / "study.toml"
    study.write_text(
        'name = "ro"\ngame = "bots.toml"\n[[contestant]]\nname = "a"\nkind = "baseline"\n'
        '[[contestant]]\nname = "b"\nkind = "random"\n',
        encoding="utf-8",
    )
    small_disk.mount("1m")
    small_disk.read_only()
    out = str(small_disk.path / "out")
    args = {
        "run": ["run", str(config), "--out", out, "--quiet"],
        "batch": ["batch", str(config), "--games", "2", "--out", out, "--quiet"],
        "study": ["study", str(study), "--out", out, "--quiet"],
    }[command]
    one_fault_line(invoke(*args), "Read-only file system", out)
