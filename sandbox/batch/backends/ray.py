"""The Ray backend: each game of a batch is a Ray task on a cluster.

The driver (the ``sandbox batch`` process) submits at most ``workers`` games at a
time, collects each result as its game finishes and hands it on at once
(progress, wins, cost). Ray itself never retries a game (``max_retries=0``): a
retry from scratch would play the game twice.

Transcripts. Every task plays its game into a folder of its own, so the file of
an unfinished game is found without guessing:

- ``send`` (default): a folder on the worker's disk. A thread in the task streams
  each complete line to the *tracker* actor as the game goes; the finished file
  is returned with the result and written by the driver into ``--out``.
- ``shared``: ``<out>/.ray-staging/<game>/`` on storage every node mounts; the
  finished file is moved into ``<out>``.

Worker loss. When a task dies with its worker or node, the driver starts it
again with the lines played so far (from the tracker, or from the staging
folder): the new task resumes the game from its transcript
(``sandbox.play.resume``), so it is finished, not restarted, and its result is
counted once. A game whose task is lost ``MAX_ATTEMPTS`` times is reported as
failed with its seed (its partial transcript kept in ``--out``); the batch goes on.

Limits. With ``--limit``/``--rpm`` the driver starts one *limiter* actor and
every task installs a call gate (sandbox/models/gate.py) that asks it before
each HTTP attempt, so the limits hold across all workers. ``--max-cost`` stops
starting games once the finished ones have spent that much.

Ray is imported only here, and only when ``--backend ray`` is chosen.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
import re
import shutil
import tempfile
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.batch.backends.base import BackendError, BackendOptions
from sandbox.batch.backends.limits import Limit, LimiterCore, key_for
from sandbox.batch.jobs import (
    Admit,
    BatchResult,
    GameJob,
    GameResult,
    Halt,
    admit_all,
    never_halt,
)
from sandbox.batch.run import error_line, play_one
from sandbox.models.gate import install_gate
from sandbox.play import SessionError, open_transcript, resume
from sandbox.study.sides import role_group

STAGING = ".ray-staging"
MAX_ATTEMPTS = 3  # a game's task may be lost twice and still be finished
TAIL_PERIOD_S = 0.2  # how often a task sends its new transcript lines to the tracker
STOP_WAIT_S = 15.0  # after Ctrl-C, how long a cancelled game may take to close its file


def ray_module() -> Any:
    """Ray, imported on first use (typed as Any: its stubs would only slow mypy)."""
    return importlib.import_module("ray")


def require_ray() -> None:
    try:
        ray_module()
    except ImportError:
        raise BackendError(
            "--backend ray needs Ray: pip install 'llm-deduction-sandbox[ray]'"
        ) from None


def game_ident(job: GameJob) -> str:
    """A job's name for folders and actors: its key if it has one, else its seed."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", job.key or f"s{job.seed}")


# -------------------------------------------------------------------- actors


class GameTracker:
    """Driver-side memory of running games (a Ray actor, no CPU): each task's
    worker pid and, in ``send`` mode, the transcript lines written so far."""

    def __init__(self) -> None:
        self._pids: dict[str, int] = {}
        self._lines: dict[str, tuple[str, bytearray]] = {}

    def started(self, ident: str, pid: int) -> None:
        self._pids[ident] = pid

    def append(self, ident: str, name: str, chunk: bytes) -> None:
        self._lines.setdefault(ident, (name, bytearray()))[1].extend(chunk)

    def partial(self, ident: str) -> tuple[str, bytes] | None:
        entry = self._lines.get(ident)
        return (entry[0], bytes(entry[1])) if entry else None

    def forget(self, ident: str) -> None:
        self._pids.pop(ident, None)
        self._lines.pop(ident, None)

    def running(self) -> dict[str, tuple[int, int]]:
        """Per running game: (worker pid, transcript lines received)."""
        return {
            ident: (pid, self._lines[ident][1].count(b"\n") if ident in self._lines else 0)
            for ident, pid in self._pids.items()
        }


class Limiter:
    """The cluster-wide call limiter (an async Ray actor around LimiterCore)."""

    def __init__(self, limits: Mapping[str, Limit]) -> None:
        self._core = LimiterCore(limits)

    async def acquire(self, key: str, holder: str) -> None:
        await self._core.acquire(key, holder)

    async def release(self, key: str, holder: str) -> None:
        await self._core.release(key, holder)

    async def release_holder(self, holder: str) -> int:
        return await self._core.release_holder(holder)

    async def peaks(self) -> dict[str, int]:
        return self._core.peaks()


class RayGate:
    """A call gate that holds a limiter slot for the length of each HTTP attempt."""

    def __init__(self, limiter: Any, limits: Mapping[str, Limit], holder: str) -> None:
        self.limiter = limiter
        self.limits = dict(limits)
        self.holder = holder

    @asynccontextmanager
    async def slot(self, model: str) -> AsyncIterator[None]:
        key = key_for(model, self.limits)
        if key is None:
            yield
            return
        try:
            await self.limiter.acquire.remote(key, self.holder)
        except asyncio.CancelledError:
            # The grant may still come after this release; the task's
            # release_holder at its end gives it back then.
            self.limiter.release.remote(key, self.holder)
            raise
        try:
            yield
        finally:
            await self.limiter.release.remote(key, self.holder)


# ---------------------------------------------------------------- one task


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
        partial = _partial_in(folder, plan)
        tail = None if shared else _Tail(folder, plan, partial)
        try:
            result, resumed = _play_or_resume(job, folder, partial)
        finally:
            if tail is not None:
                tail.stop()
        return _outcome(job, plan, result, resumed)
    finally:
        install_gate(None)
        if plan.limiter is not None:
            ray.get(plan.limiter.release_holder.remote(plan.holder))
        if not shared:
            shutil.rmtree(folder, ignore_errors=True)


def _partial_in(folder: Path, plan: TaskPlan) -> Path | None:
    """The unfinished transcript a lost attempt left, if any line of it survived."""
    if plan.partial is not None:
        name, data = plan.partial
        (folder / name).write_bytes(data)
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        return None
    if not files[0].read_bytes().strip():
        files[0].unlink()  # lost before the header was written: play afresh
        return None
    return files[0]


def _play_or_resume(job: GameJob, folder: Path, partial: Path | None) -> tuple[GameResult, bool]:
    if partial is not None:
        try:
            finished = open_transcript(partial).finished
        except SessionError:  # lost while its header was being written: nothing to keep
            partial.unlink()
            partial = None
    if partial is None:
        return play_one(dataclasses.replace(job, out=str(folder), resume=None)), False
    base = GameResult(job.seed, str(partial), key=job.key, resumed=True)
    try:
        if not finished:  # a finished game was lost on its way back: nothing to play
            resume(partial)
    except KeyboardInterrupt:
        return dataclasses.replace(base, interrupted=True), True
    except Exception as err:  # a broken resume fails this game, not the batch
        return dataclasses.replace(base, error=error_line(err)), True
    return _result_of_file(job, partial), True


def _result_of_file(job: GameJob, path: Path) -> GameResult:
    """What play_one would have said, read back from the finished transcript."""
    transcript = open_transcript(path)
    outcome = transcript.outcome or {}
    roles = {str(s): str(r) for s, r in transcript.header["roles"].items()}
    results = outcome.get("results") or {}
    wins = sorted({role_group(roles[s]) for s, r in results.items() if r == "win"})
    return GameResult(
        job.seed, str(path), outcome.get("reason"), tuple(wins), key=job.key, resumed=True
    )


def _outcome(job: GameJob, plan: TaskPlan, result: GameResult, resumed: bool) -> TaskOutcome:
    """Move (shared) or pack (send) the transcript; the result names its place in --out."""
    if result.transcript is None:
        return TaskOutcome(result, None, None, 0.0, resumed)
    path = Path(result.transcript)
    cost = _cost_of(path)
    target = Path(job.out) / path.name
    if plan.mode == "shared":
        os.replace(path, target)
        shutil.rmtree(path.parent, ignore_errors=True)
        data = None
    else:
        data = path.read_bytes()
    result = dataclasses.replace(result, transcript=str(target), cost=cost)
    return TaskOutcome(result, path.name, data, cost, resumed)


def _cost_of(path: Path) -> float:
    try:
        calls = open_transcript(path).calls
    except SessionError:
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

        files = sorted(self.folder.glob("*.jsonl"))
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


# ------------------------------------------------------------------- driver


class RayBackend:
    """Plays a batch's games as Ray tasks; see the module docstring."""

    name = "ray"

    def __init__(self, options: BackendOptions) -> None:
        self.options = options
        self.limits: dict[str, Limit] = dict(options.limits or {})
        self.spent = 0.0  # USD, over finished (and cut short) games
        self.stopped: str | None = None  # why no further game was started
        self.resumed: list[str] = []  # games finished after a lost worker, by ident
        self.tracker: Any = None
        self.limiter: Any = None
        self._started_ray = False
        self._task: Any = None

    # ---------------------------------------------------------- connection
    def start(self) -> None:
        """Join the cluster at ``--address``, or start one on this machine."""
        ray = ray_module()

        if not ray.is_initialized():
            quiet: dict[str, Any] = {
                "include_dashboard": False,
                "logging_level": "ERROR",
                "log_to_driver": False,  # a game's failure comes back in its result
            }
            try:
                if self.options.address is None:
                    cpus = self.options.workers if self.options.workers > 1 else None
                    ray.init(num_cpus=cpus, _node_ip_address="127.0.0.1", **quiet)
                else:
                    ray.init(address=self.options.address, **quiet)
            except (ConnectionError, RuntimeError, ValueError) as err:
                raise BackendError(f"--address {self.options.address}: {error_line(err)}") from None
            self._started_ray = True
        if self._task is None:
            self._task = ray.remote(num_cpus=1, max_retries=0)(play_task)
            self.tracker = ray.remote(num_cpus=0)(GameTracker).remote()
            if self.limits:
                actor = ray.remote(num_cpus=0, max_concurrency=10_000)(Limiter)
                self.limiter = actor.remote(self.limits)

    def close(self) -> None:
        """Shut down the cluster if this backend started it."""
        ray = ray_module()

        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
        self._task = self.tracker = self.limiter = None

    def window(self) -> int:
        """Games in flight: --jobs N > 1, else one per CPU of the cluster."""
        ray = ray_module()

        if self.options.workers > 1:
            return self.options.workers
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def peaks(self) -> dict[str, int]:
        """The most calls each limited key had in flight at once, cluster-wide."""
        ray = ray_module()

        return dict(ray.get(self.limiter.peaks.remote())) if self.limiter else {}

    def running(self) -> dict[str, tuple[int, int]]:
        """Running games: worker pid and transcript lines so far (send mode)."""
        ray = ray_module()

        return dict(ray.get(self.tracker.running.remote())) if self.tracker else {}

    # ---------------------------------------------------------------- run
    def run(
        self,
        jobs: Sequence[GameJob],
        on_result: Callable[[GameResult], None],
        admit: Admit = admit_all,
        halt: Halt = never_halt,
    ) -> BatchResult:
        """As ``sandbox.batch.run.run_batch``: ``admit`` may hold a job back while others
        run (a study's provider limits), ``halt`` stop new games (its cost cap)."""
        self.start()
        batch = BatchResult()
        try:
            self._run(jobs, batch, on_result, admit, halt)
        except KeyboardInterrupt:
            batch.interrupted = True
        batch.stopped = batch.stopped or self.stopped
        batch.results.sort(key=lambda r: (r.seed, r.key))
        return batch

    def _run(
        self,
        jobs: Sequence[GameJob],
        batch: BatchResult,
        on_result: Callable[[GameResult], None],
        admit: Admit,
        halt: Halt,
    ) -> None:
        ray = ray_module()

        size = self.window()
        waiting: deque[tuple[GameJob, int]] = deque((job, 0) for job in jobs)
        running: dict[Any, tuple[GameJob, int]] = {}
        try:
            while waiting or running:
                while waiting and len(running) < size:
                    picked = self._next(waiting, [job for job, _ in running.values()], admit, halt)
                    if picked is None:
                        break
                    job, attempt = picked
                    if job.resume is not None:  # left unfinished by an earlier run
                        job = self._hand_over(job)
                    running[self._submit(job, attempt)] = (job, attempt)
                if not running:
                    break  # the cost cap holds back everything left
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    job, attempt = running.pop(ref)
                    result = self._collect(ref, job, attempt, waiting)
                    if result is not None:
                        batch.results.append(result)
                        on_result(result)
        except KeyboardInterrupt:
            self._stop(running, batch)
            raise

    def _next(
        self,
        waiting: deque[tuple[GameJob, int]],
        running: Sequence[GameJob],
        admit: Admit,
        halt: Halt,
    ) -> tuple[GameJob, int] | None:
        """The next job to submit: a lost game's next attempt first (always
        finished), else the first new one ``admit`` lets in, unless stopped."""
        if waiting[0][1] > 0:
            return waiting.popleft()
        if not self._may_start(0):
            return None
        self.stopped = halt(running)
        if self.stopped:
            return None
        for index, (job, attempt) in enumerate(waiting):
            if admit(job, running):
                del waiting[index]
                return job, attempt
        return None

    def _may_start(self, attempt: int) -> bool:
        """A lost game is always finished; a new one only under the cost cap."""
        cap = self.options.max_cost
        if cap is not None and self.spent >= cap and self.stopped is None:
            self.stopped = f"cost cap ${cap:.4f} reached (${self.spent:.4f} spent)"
        return attempt > 0 or self.stopped is None

    def _submit(self, job: GameJob, attempt: int) -> Any:
        ray = ray_module()

        ident = game_ident(job)
        shared = self.options.transcripts == "shared"
        stage = Path(job.out) / STAGING / ident
        # send: the lines of a lost attempt, or of a transcript handed over (_hand_over)
        partial = None if shared else ray.get(self.tracker.partial.remote(ident))
        plan = TaskPlan(
            ident=ident,
            holder=f"{ident}#{attempt}",
            mode=self.options.transcripts,
            stage=str(stage),
            partial=partial,
            tracker=self.tracker,
            limiter=self.limiter,
            limits=self.limits,
        )
        return self._task.remote(job, plan)

    def _hand_over(self, job: GameJob) -> GameJob:
        """An interrupted transcript in --out becomes the game's partial: moved into
        its staging folder (shared) or given to the tracker (send); the finished
        file comes back under the same name."""
        ray = ray_module()

        ident = game_ident(job)
        stage = Path(job.out) / STAGING / ident
        path = Path(str(job.resume))
        if self.options.transcripts == "shared":
            stage.mkdir(parents=True, exist_ok=True)
            os.replace(path, stage / path.name)
        else:
            ray.get(self.tracker.forget.remote(ident))
            ray.get(self.tracker.append.remote(ident, path.name, path.read_bytes()))
        return dataclasses.replace(job, resume=None)

    def _collect(
        self, ref: Any, job: GameJob, attempt: int, waiting: deque[tuple[GameJob, int]]
    ) -> GameResult | None:
        """The game's result, or None when its lost task was started again."""
        ray = ray_module()

        ident = game_ident(job)
        try:
            outcome: TaskOutcome = ray.get(ref)
        except lost_errors() as err:
            if self.limiter is not None:  # the dead worker's call slots
                ray.get(self.limiter.release_holder.remote(f"{ident}#{attempt}"))
            if attempt + 1 < MAX_ATTEMPTS:
                waiting.appendleft((job, attempt + 1))
                return None
            kept = self._salvage(job)
            error = f"worker lost {attempt + 1} times: {error_line(err)}"
            return GameResult(job.seed, kept, error=error, key=job.key)
        except ray.exceptions.RayError as err:
            self._salvage(job)
            return GameResult(job.seed, None, error=error_line(err), key=job.key)
        return self._land(job, outcome)

    def _land(self, job: GameJob, outcome: TaskOutcome) -> GameResult:
        ray = ray_module()

        ident = game_ident(job)
        if outcome.data is not None and outcome.name is not None:
            Path(job.out).mkdir(parents=True, exist_ok=True)  # as a local game would
            (Path(job.out) / outcome.name).write_bytes(outcome.data)
        ray.get(self.tracker.forget.remote(ident))
        self.spent += outcome.cost
        if outcome.resumed:
            self.resumed.append(ident)
        return outcome.result

    def _salvage(self, job: GameJob) -> str | None:
        """Put what a game left into --out, so ``sandbox resume`` can finish it."""
        ray = ray_module()

        ident = game_ident(job)
        if self.options.transcripts == "shared":
            stage = Path(job.out) / STAGING / ident
            files = sorted(stage.glob("*.jsonl"))
            target = Path(job.out) / files[0].name if files else None
            if files and target is not None:
                os.replace(files[0], target)
            shutil.rmtree(stage, ignore_errors=True)
        else:
            partial = ray.get(self.tracker.partial.remote(ident))
            target = Path(job.out) / partial[0] if partial else None
            if partial and target is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(partial[1])
        ray.get(self.tracker.forget.remote(ident))
        return str(target) if target is not None else None

    def _stop(self, running: Mapping[Any, tuple[GameJob, int]], batch: BatchResult) -> None:
        """Ctrl-C: cancel the running games; keep their transcripts resumable."""
        ray = ray_module()

        for ref in running:
            ray.cancel(ref)
        seen = {r.ident for r in batch.results}
        for ref, (job, _) in running.items():
            try:
                result = self._land(job, ray.get(ref, timeout=STOP_WAIT_S))
            except Exception:  # cancelled before it could answer: take what it left
                result = GameResult(job.seed, self._salvage(job), interrupted=True, key=job.key)
            if result.ident not in seen:
                batch.results.append(result)


def lost_errors() -> tuple[type[BaseException], ...]:
    """The errors of a task whose worker or node went away (not of the game itself)."""
    rx = ray_module().exceptions

    names = (
        "WorkerCrashedError",
        "NodeDiedError",
        "LocalRayletDiedError",
        "ObjectLostError",
        "OwnerDiedError",
        "OutOfMemoryError",
        "RaySystemError",
    )
    return tuple(getattr(rx, name) for name in names if hasattr(rx, name))
