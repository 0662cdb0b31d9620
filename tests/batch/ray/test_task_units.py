"""A Ray task's game logic without Ray: play afresh, resume a partial transcript,
or read back a game that finished before its worker was lost."""

from __future__ import annotations

from pathlib import Path

from sandbox.batch.backends.ray_staging import game_ident
from sandbox.batch.backends.ray_task import _play_or_resume
from sandbox.batch.run import GameJob, jobs_for
from tests.batch.ray.conftest import comparable, events_of, loaded_of, play_local

BOTS = """
variant = "killer"
[rules]
players = 11
[default_agent]
kind = "baseline"
"""


def one_job(out: Path, seed: int = 3) -> GameJob:
    return jobs_for(loaded_of(BOTS), [seed], out)[0]


def reference(tmp_path: Path, seed: int = 3) -> Path:
    batch = play_local(loaded_of(BOTS), [seed], tmp_path / "local")
    return Path(batch.results[0].transcript or "")


def test_a_partial_transcript_is_resumed_to_the_same_game(tmp_path: Path) -> None:
    full = reference(tmp_path)
    lines = full.read_bytes().splitlines(keepends=True)
    folder = tmp_path / "stage"
    folder.mkdir()
    partial = folder / full.name
    partial.write_bytes(b"".join(lines[: len(lines) // 2]))  # lost half-way
    result, resumed = _play_or_resume(one_job(tmp_path / "out"), folder, partial)
    assert resumed and result.finished and result.transcript == str(partial)
    assert events_of(partial) == events_of(full)
    assert comparable(partial)[-1]["results"] == comparable(full)[-1]["results"]


def test_a_game_finished_before_its_worker_was_lost_is_not_played_again(tmp_path: Path) -> None:
    full = reference(tmp_path)
    folder = tmp_path / "stage"
    folder.mkdir()
    partial = folder / full.name
    partial.write_bytes(full.read_bytes())
    result, resumed = _play_or_resume(one_job(tmp_path / "out"), folder, partial)
    assert resumed and result.finished
    assert partial.read_bytes() == full.read_bytes()  # not a line added
    local = play_local(loaded_of(BOTS), [3], tmp_path / "again").results[0]
    assert (result.reason, result.winners) == (local.reason, local.winners)


def test_a_torn_header_means_a_fresh_game(tmp_path: Path) -> None:
    folder = tmp_path / "stage"
    folder.mkdir()
    partial = folder / "killer-s3-x.jsonl"
    partial.write_bytes(b'{"type":"header","sch')
    result, resumed = _play_or_resume(one_job(tmp_path / "out"), folder, partial)
    assert not resumed and result.finished
    assert not partial.exists()
    assert Path(result.transcript or "").parent == folder


def test_game_idents_are_file_safe() -> None:
    job = one_job(Path("out"), seed=12)
    key = str(getattr(job, "key", "") or "")  # batch jobs carry a key on some branches
    assert game_ident(job) == (key.replace(":", "_").replace("/", "_") if key else "s12")
