"""Concurrent writers (issue 25, item 3), with real processes.

Two ``sandbox study`` runs on one study, a ``batch`` into a study's folder, two
``resume`` of one transcript: the second is refused with one line naming the
holder (pid, host, command, since), and a holder that is SIGKILLed leaves no
stuck lock: the next run takes over and finishes the work, nothing twice.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.models.fake.server import FakeLLMServer
from sandbox.transcript import Busy, folder_lock, transcript_lock
from sandbox.transcript.lock import FOLDER_LOCK, folder_lock_path, transcript_lock_path
from tests.hardening.helpers import invoke, read_lines

ROOT = Path(__file__).resolve().parents[2]
BOTS = 'variant = "killer"\n[rules]\nplayers = 11\n'


def sandbox(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "sandbox", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], timeout: float = 300) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def wait_for_holder(lock: Path, process: subprocess.Popen[str], timeout: float = 120) -> None:
    """Until ``process`` holds ``lock`` (its pid is in the lock file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, finish(process)
        try:
            if json.loads(lock.read_text(encoding="utf-8")).get("pid") == process.pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"{process.pid} never took {lock}")


def refused_by(result: tuple[int, str, str], holder: subprocess.Popen[str], command: str) -> None:
    code, _, err = result
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, err
    line = lines[0]
    assert line.startswith("error: ") and "in use by another sandbox" in line, line
    assert f"pid {holder.pid} on {socket.gethostname()}" in line, line
    assert command in line and "since 20" in line, line


def killed(process: subprocess.Popen[str]) -> None:
    assert process.poll() is None, "the holder ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(30)


@pytest.fixture
def study_file(tmp_path: Path) -> Path:
    (tmp_path / "bots.toml").write_text(BOTS, encoding="utf-8")
    path = tmp_path / "study.toml"
    path.write_text(
        'name = "busy"\ngame = "bots.toml"\ngames_per_cell = 120\nseed = 1\nout = "out"\n'
        '[[contestant]]\nname = "base"\nkind = "baseline"\n'
        '[[contestant]]\nname = "rand"\nkind = "random"\n',
        encoding="utf-8",
    )
    return path


def test_a_second_study_or_a_batch_in_its_folder_is_refused_and_a_killed_one_resumes(
    study_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = sandbox("study", str(study_file), "--quiet", "--json")
    wait_for_holder(folder_lock_path(out), first)

    second = finish(sandbox("study", str(study_file), "--quiet"))
    refused_by(second, first, f"sandbox study {study_file}")
    batch = finish(sandbox("batch", str(tmp_path / "bots.toml"), "--games", "2", "--out", str(out)))
    refused_by(batch, first, "study")

    killed(first)  # mid-study: some games done, one maybe torn mid-line
    assert (out / FOLDER_LOCK).exists()  # left behind, but no longer locked
    code, stdout, err = finish(sandbox("study", str(study_file), "--quiet", "--json"), 600)
    assert code == 0, err
    report = json.loads(stdout)
    assert report["planned"] == report["finished"] == 240 and report["failed"] == []
    files = list(out.glob("*.jsonl"))
    assert len(files) == 240  # the killed game was finished in its own file
    keys = [(h["study"]["cell"], h["seed"]) for h in (read_lines(f)[0] for f in files)]
    assert len(set(keys)) == 240
    assert not (out / FOLDER_LOCK).exists()  # a clean end removes it


@pytest.fixture(scope="module")
def slow_fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=2) as server:
        yield server


@pytest.fixture
def fast(slow_fake: FakeLLMServer) -> Iterator[FakeLLMServer]:
    slow_fake.latency_s = 0.0
    yield slow_fake
    slow_fake.latency_s = 0.0


@pytest.fixture(scope="module")
def llm_game(slow_fake: FakeLLMServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game file of Killer's LLM seats on the fake, and its game cut mid-way."""
    folder = tmp_path_factory.mktemp("llm")
    config = folder / "llm.toml"
    config.write_text(
        BOTS + '[default_agent]\nkind = "llm"\nmodel = "fake/legal-random"\n'
        f'api_base = "{slow_fake.base_url}"\ntimeout_s = 30\n',
        encoding="utf-8",
    )
    result = invoke("run", str(config), "--seed", "3", "--out", str(folder / "g"), "--quiet")
    assert result.exit_code == 0, result.output
    (path,) = (folder / "g").glob("*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:40]), encoding="utf-8")
    return path


def unfinished_copy(llm_game: Path, folder: Path) -> Path:
    path = folder / llm_game.name
    path.write_bytes(llm_game.read_bytes())
    return path


def test_a_second_resume_of_one_transcript_is_refused_and_a_killed_one_is_not_stuck(
    fast: FakeLLMServer, llm_game: Path, tmp_path: Path
) -> None:
    slow_fake = fast
    path = unfinished_copy(llm_game, tmp_path)
    slow_fake.latency_s = 1.0  # the first resume is still playing when the second comes
    first = sandbox("resume", str(path), "--quiet")
    wait_for_holder(transcript_lock_path(path), first)
    before = path.read_bytes()

    refused_by(finish(sandbox("resume", str(path), "--quiet")), first, "resume")
    assert path.read_bytes().startswith(before)  # the refused one wrote nothing

    killed(first)
    slow_fake.latency_s = 0.0
    code, _, err = finish(sandbox("resume", str(path), "--quiet"))
    assert code == 0, err
    assert read_lines(path)[-1]["type"] == "outcome"
    replay = invoke("replay", str(path))
    assert replay.exit_code == 0 and replay.stdout.startswith("OK: "), replay.output


def test_a_run_writing_a_transcript_keeps_a_resume_off_it(
    fast: FakeLLMServer, llm_game: Path, tmp_path: Path
) -> None:
    """Whoever writes a transcript holds its lock: a game still being played
    (its writer open) cannot be resumed from under it."""
    config = llm_game.parents[1] / "llm.toml"
    fast.latency_s = 1.0
    game = sandbox("run", str(config), "--seed", "5", "--out", str(tmp_path / "live"), "--quiet")
    deadline = time.monotonic() + 120
    while not list((tmp_path / "live").glob(".*.lock")) and time.monotonic() < deadline:
        time.sleep(0.05)
    (live_lock,) = (tmp_path / "live").glob(".*.lock")
    wait_for_holder(live_lock, game)
    live = live_lock.with_name(live_lock.name[1:].removesuffix(".lock"))
    assert live.exists()
    refused_by(finish(sandbox("resume", str(live), "--quiet")), game, "run")
    killed(game)


# ------------------------------------------------------------- the lock itself


def test_a_lock_is_reentrant_in_one_process_and_removed_when_released(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    with folder_lock(folder):
        with folder_lock(folder):  # a study's run re-takes its command's lock
            assert folder_lock_path(folder).exists()
        assert folder_lock_path(folder).exists()  # still held by the outer one
    assert not folder_lock_path(folder).exists()


def test_another_process_is_refused_while_held_and_admitted_after_a_kill(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    hold = (
        "import sys, time; from pathlib import Path; from sandbox.transcript import "
        "transcript_lock\nwith transcript_lock(Path(sys.argv[1])):\n"
        "    print('held', flush=True); time.sleep(600)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(transcript)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with (
            pytest.raises(Busy, match=f"pid {holder.pid} on ") as refused,
            transcript_lock(transcript),
        ):
            pass
        message: Any = str(refused.value)
        assert message.startswith(f"{transcript} is in use by another sandbox")
        assert "\n" not in message
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    with transcript_lock(transcript):  # the kernel freed the dead holder's lock
        info = json.loads(transcript_lock_path(transcript).read_text(encoding="utf-8"))
        assert info["pid"] == os.getpid()
