"""The worker side of the Ray backend: the body of every Ray task, which plays
one game (or resumes it from the lines a lost attempt left) into a folder of
its own, streams its transcript to the tracker as it goes (``send`` mode), and
hands back the result with the finished file (``send``) or moves the file into
``--out`` (``shared``). With games in flight the same steps run as coroutines
of an async actor (sandbox/batch/backends/ray_worker.py), which reuses the
steps that do not play: ``partial_in``, ``attempt_of``, ``outcome_of``, ``result_of_file``."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.batch.backends.base import Limit
from sandbox.batch.backends.ray_actors import RayGate
from sandbox.batch.backends.ray_cluster import ray_module
from sandbox.batch.jobs import GameJob, GameResult
from sandbox.batch.run import play_one
from sandbox.models.gate import install_gate
from sandbox.transcript import TranscriptError, read_transcript
from sandbox.transcript.files import SUFFIX
from sandbox.transcript.sides import role_group

TAIL_PERIOD_S = 0.2  # how often a task sends its new transcript lines to the tracker


@dataclass(frozen=True)
class TaskPlan:
    """How a task plays its game; plain data and actor handles."""

    ident: str
    holder: str  # whose limiter slots these are: the game and its attempt
    mode: str  # "send" or "shared"
    stage: str  # shared: this game's staging folder; send: unused
    partial: tuple[str, bytes] | None  # send: lines of a lost attempt (file name, bytes)
    tracker: Any
    limiter: Any | None
    limits: Mapping[str, Limit]


@dataclass(frozen=True)
class TaskOutcome:
    """What a task hands back to the driver."""

    result: GameResult
    name: str | None  # the transcript's file name
    data: bytes | None  # send mode: the whole transcript
    cost: float  # what the game's calls cost (USD)
    resumed: bool


def play_task(job: GameJob, plan: TaskPlan) -> TaskOutcome:
    """Play (or resume) one game on a worker; the body of every Ray task."""
    ray = ray_module()

    ray.get(plan.tracker.started.remote(plan.ident, os.getpid()))
    shared = plan.mode == "shared"
    folder = Path(plan.stage) if shared else Path(tempfile.mkdtemp(prefix="sandbox-ray-"))
    folder.mkdir(parents=True, exist_ok=True)
    if plan.limiter is not None:
        install_gate(RayGate(plan.limiter, plan.limits, plan.holder))
    try:
        partial = partial_in(folder, plan)
        tail = None if shared else _Tail(folder, plan, partial)
        try:
            result, resumed = _play_or_resume(job, folder, partial)
        finally:
            if tail is not None:
                tail.stop()
        return outcome_of(job, plan, result, resumed)
    finally:
        install_gate(None)
        if plan.limiter is not None:
            ray.get(plan.limiter.release_holder.remote(plan.holder))
        if not shared:
            shutil.rmtree(folder, ignore_errors=True)


def partial_in(folder: Path, plan: TaskPlan) -> Path | None:
    """The unfinished transcript a lost attempt left, if any line of it survived."""
    if plan.partial is not None:
        name, data = plan.partial
        (folder / name).write_bytes(data)
    files = sorted(folder.glob(f"*{SUFFIX}"))
    if not files:
        return None
    if not files[0].read_bytes().strip():
        files[0].unlink()  # lost before the header was written: play afresh
        return None
    return files[0]


def attempt_of(job: GameJob, folder: Path, partial: Path | None) -> GameJob | Path:
    """What this attempt at a game does, for a Ray task and an actor alike: a
    fresh game into ``folder``, the partial transcript a lost attempt left
    resumed in place, or, when that transcript already finished (the game was
    lost on its way back), its path, to read the result from; nothing is
    played then. A partial lost while its header was being written is removed."""
    if partial is not None:
        try:
            if read_transcript(partial).finished:
                return partial
        except TranscriptError:  # nothing to keep
            partial.unlink()
            partial = None
    if partial is None:
        return dataclasses.replace(job, out=str(folder), resume=None)
    return dataclasses.replace(job, resume=str(partial))


def _play_or_resume(job: GameJob, folder: Path, partial: Path | None) -> tuple[GameResult, bool]:
    """(the game's result, whether it went on from a lost attempt's transcript)."""
    attempt = attempt_of(job, folder, partial)
    if isinstance(attempt, Path):
        return result_of_file(job, attempt), True
    return play_one(attempt), attempt.resume is not None


def result_of_file(job: GameJob, path: Path) -> GameResult:
    """What play_one would have said, read back from the finished transcript."""
    transcript = read_transcript(path)
    outcome = transcript.outcome or {}
    roles = {str(s): str(r) for s, r in transcript.header["roles"].items()}
    results = outcome.get("results") or {}
    wins = sorted({role_group(roles[s]) for s, r in results.items() if r == "win"})
    return GameResult(
        job.seed, str(path), outcome.get("reason"), tuple(wins), key=job.key, resumed=True
    )


def outcome_of(job: GameJob, plan: TaskPlan, result: GameResult, resumed: bool) -> TaskOutcome:
    """Move (shared) or pack (send) the transcript; the result names its place in --out."""
    if result.transcript is None:
        return TaskOutcome(result, None, None, 0.0, resumed)
    path = Path(result.transcript)
    cost = cost_of(path)
    target = Path(job.out) / path.name
    if plan.mode == "shared":
        os.replace(path, target)
        shutil.rmtree(path.parent, ignore_errors=True)
        data = None
    else:
        data = path.read_bytes()
    result = dataclasses.replace(result, transcript=str(target), cost=cost)
    return TaskOutcome(result, path.name, data, cost, resumed)


def cost_of(path: Path) -> float:
    try:
        calls = read_transcript(path).calls
    except TranscriptError:
        return 0.0
    return float(sum(float(call.get("cost") or 0.0) for call in calls))


class _Tail:
    """Sends each complete new line of the game's transcript to the tracker."""

    def __init__(self, folder: Path, plan: TaskPlan, partial: Path | None) -> None:
        self.folder = folder
        self.plan = plan
        # The tracker already holds a lost attempt's lines: go on after them.
        self.offset = partial.stat().st_size if partial is not None else 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="transcript-tail", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(TAIL_PERIOD_S):
            self.flush()

    def flush(self) -> None:
        ray = ray_module()

        files = sorted(self.folder.glob(f"*{SUFFIX}"))
        if not files:
            return
        with files[0].open("rb") as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        cut = chunk.rfind(b"\n") + 1
        if cut:
            ray.get(self.plan.tracker.append.remote(self.plan.ident, files[0].name, chunk[:cut]))
            self.offset += cut

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.flush()
