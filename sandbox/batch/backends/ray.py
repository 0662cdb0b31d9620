"""The Ray backend: each game of a batch is one Ray call on a cluster.

With one game in flight per worker each game is a Ray task (1 CPU), at most
``workers`` at a time (≤ 1: one per cluster CPU). With ``--games-in-flight N``
above 1 the driver starts ``workers`` (≤ 1: one per cluster CPU) async actors,
each playing up to N games at once (sandbox/batch/backends/ray_worker.py), and
gives each new game to the actor with the fewest. Either way the driver
collects each result as its game finishes and hands it on at once (progress,
wins, cost). Ray itself never retries a game (``max_retries=0``,
``max_task_retries=0``): a retry from scratch would play the game twice.

Transcripts. Every task plays its game into a folder of its own, so the file of
an unfinished game is found without guessing:

- ``send`` (default): a folder on the worker's disk. A thread in the task streams
  each complete line to the *tracker* actor as the game goes; the finished file
  is returned with the result and written by the driver into ``--out``.
- ``shared``: ``<out>/.ray-staging/<game>/`` on storage every node mounts; the
  finished file is moved into ``<out>``.

Worker loss. When a task dies with its worker or node (or an actor dies with
every game it plays; a fresh actor takes its place), the driver starts each
game again with the lines played so far (from the tracker, or from the staging
folder): the new task resumes the game from its transcript
(``sandbox.session.resume``), so it is finished, not restarted, and its result is
counted once. A game whose task is lost ``MAX_ATTEMPTS`` times is reported as
failed with its seed (its partial transcript kept in ``--out``); the batch goes on.

Limits. With ``--limit``/``--rpm`` the driver starts one *limiter* actor and
every task installs a call gate (sandbox/models/gate.py) that asks it before
each HTTP attempt, so the limits hold across all workers. ``--max-cost`` stops
starting games once the finished ones have spent that much.

This module is the driver side; a task's side is :mod:`~sandbox.batch.backends.ray_task`,
the actors both talk to :mod:`~sandbox.batch.backends.ray_actors`, where a game's
transcript waits between attempts :mod:`~sandbox.batch.backends.ray_staging`, and
joining or starting the cluster :mod:`~sandbox.batch.backends.ray_cluster`. Ray is
imported only by these modules, and only when ``--backend ray`` is chosen.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sandbox.batch.backends.base import BackendOptions, Limit
from sandbox.batch.backends.ray_actors import GameTracker, Limiter
from sandbox.batch.backends.ray_cluster import cluster_cpus, connect, lost_errors, ray_module
from sandbox.batch.backends.ray_staging import game_ident, hand_over, salvage, stage_of
from sandbox.batch.backends.ray_task import (
    TaskOutcome,
    TaskPlan,
    cost_of,
    play_task,
    result_of_file,
)
from sandbox.batch.backends.ray_worker import GameWorker
from sandbox.batch.jobs import (
    Admit,
    BatchResult,
    GameJob,
    GameResult,
    Halt,
    admit_all,
    halting_on_stop,
    never_halt,
)
from sandbox.batch.run import error_line
from sandbox.transcript import TranscriptError, read_transcript

MAX_ATTEMPTS = 3  # a game's task may be lost twice and still be finished
STOP_WAIT_S = 15.0  # after Ctrl-C, how long a cancelled game may take to close its file


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
        self._worker: Any = None  # the actor class, with games in flight
        self._pool: list[Any] = []  # its actors, one per worker
        self._load: list[int] = []  # games each actor plays now
        self._placed: dict[Any, tuple[int, Any]] = {}  # a game's ref -> (slot, actor)

    # ---------------------------------------------------------- connection
    def start(self) -> None:
        """Join the cluster at ``--address``, or start one on this machine."""
        ray = ray_module()

        if connect(self.options.address, self.options.workers):
            self._started_ray = True
        if self._task is None:
            self._task = ray.remote(num_cpus=1, max_retries=0)(play_task)
            self.tracker = ray.remote(num_cpus=0)(GameTracker).remote()
            if self.limits:
                actor = ray.remote(num_cpus=0, max_concurrency=10_000)(Limiter)
                self.limiter = actor.remote(self.limits)
            if self.options.in_flight > 1:
                self._worker = ray.remote(
                    num_cpus=1,
                    max_concurrency=self.options.in_flight + 4,  # it is given ≤ in_flight
                    max_restarts=0,
                    max_task_retries=0,
                )(GameWorker)

    def close(self) -> None:
        """Shut down the cluster if this backend started it."""
        ray = ray_module()

        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
        self._task = self.tracker = self.limiter = self._worker = None

    def workers(self) -> int:
        """Ray workers: --jobs N > 1, else one per CPU of the cluster."""
        return self.options.workers if self.options.workers > 1 else cluster_cpus()

    def window(self) -> int:
        """Games in flight on the cluster: each worker's games in flight."""
        return self.workers() * max(1, self.options.in_flight)

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
        on_result, halt = halting_on_stop(on_result, halt)  # a spent quota stops new games
        try:
            self._open_pool(len(jobs))
            self._run(jobs, batch, on_result, admit, halt)
        except KeyboardInterrupt:
            batch.interrupted = True
        finally:
            self._close_pool()
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
                        job = hand_over(job, self.options.transcripts, self.tracker)
                    running[self._submit(job, attempt)] = (job, attempt)
                if not running:
                    break  # the cost cap holds back everything left
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    job, attempt = running.pop(ref)
                    try:
                        result = self._collect(ref, job, attempt, waiting)
                    finally:
                        self._unplace(ref)
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
        # send: the lines of a lost attempt, or of a transcript handed over (hand_over)
        partial = None if shared else ray.get(self.tracker.partial.remote(ident))
        plan = TaskPlan(
            ident=ident,
            holder=f"{ident}#{attempt}",
            mode=self.options.transcripts,
            stage=str(stage_of(job)),
            partial=partial,
            tracker=self.tracker,
            limiter=self.limiter,
            limits=self.limits,
        )
        if self._worker is None:
            return self._task.remote(job, plan)
        slot = min(range(len(self._pool)), key=lambda s: self._load[s])
        actor = self._pool[slot]
        ref = actor.play.remote(job, plan)
        self._load[slot] += 1
        self._placed[ref] = (slot, actor)
        return ref

    # ------------------------------------------------- actors (games in flight)
    def _open_pool(self, games: int) -> None:
        """One actor per worker, none idle for a short batch."""
        if self._worker is None or not games:
            return
        in_flight = self.options.in_flight
        size = min(self.workers(), -(-games // in_flight))
        self._pool = [self._new_actor() for _ in range(size)]
        self._load = [0] * size

    def _new_actor(self) -> Any:
        return self._worker.remote(self.tracker, self.limiter, self.limits)

    def _unplace(self, ref: Any) -> None:
        placed = self._placed.pop(ref, None)
        if placed is not None:
            self._load[placed[0]] -= 1

    def _replace_dead(self, ref: Any, err: BaseException) -> None:
        """The actor behind a lost game died: a fresh one takes its slot (once,
        however many of its games report the loss)."""
        ray = ray_module()

        placed = self._placed.get(ref)
        if placed is None or not isinstance(err, ray.exceptions.RayActorError):
            return
        slot, actor = placed
        if self._pool[slot] is actor:
            ray.kill(actor)  # dead already, or unreachable: never two live for one slot
            self._pool[slot] = self._new_actor()

    def _close_pool(self) -> None:
        """No actor outlives the batch (a cluster joined at --address keeps running)."""
        ray = ray_module()

        for actor in self._pool:
            ray.kill(actor)
        self._pool, self._load, self._placed = [], [], {}

    def _collect(
        self, ref: Any, job: GameJob, attempt: int, waiting: deque[tuple[GameJob, int]]
    ) -> GameResult | None:
        """The game's result, or None when its lost task was started again."""
        ray = ray_module()

        ident = game_ident(job)
        try:
            outcome: TaskOutcome = ray.get(ref)
        except lost_errors() as err:
            self._replace_dead(ref, err)
            if self.limiter is not None:  # the dead worker's call slots
                ray.get(self.limiter.release_holder.remote(f"{ident}#{attempt}"))
            if attempt + 1 < MAX_ATTEMPTS:
                waiting.appendleft((job, attempt + 1))
                return None
            kept = salvage(job, self.options.transcripts, self.tracker)
            error = f"worker lost {attempt + 1} times: {error_line(err)}"
            return GameResult(job.seed, kept, error=error, key=job.key)
        except ray.exceptions.RayError as err:
            salvage(job, self.options.transcripts, self.tracker)
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

    def _stop(self, running: Mapping[Any, tuple[GameJob, int]], batch: BatchResult) -> None:
        """Ctrl-C: cancel the running games; keep their transcripts resumable."""
        ray = ray_module()

        for ref in running:
            ray.cancel(ref)
        seen = {r.ident for r in batch.results}
        # One deadline for all: with games in flight there may be hundreds.
        refs = list(running)
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=STOP_WAIT_S) if refs else ([], [])
        answered = set(ready)
        for ref, (job, attempt) in running.items():
            try:
                if ref not in answered:
                    raise TimeoutError  # still closing its file: take what it left
                result = self._land(job, ray.get(ref, timeout=0))
            except Exception:  # cancelled before it could answer: take what it left
                result = self._left(job, attempt)
            if result.ident not in seen:
                batch.results.append(result)

    def _left(self, job: GameJob, attempt: int) -> GameResult:
        """What a cancelled game left in --out: interrupted and resumable, or
        finished after all (it ended as the cancel came: every line had reached
        the tracker or the staging folder)."""
        kept = salvage(job, self.options.transcripts, self.tracker)
        if kept is not None:
            with contextlib.suppress(TranscriptError):
                if read_transcript(Path(kept)).finished:
                    done = result_of_file(job, Path(kept))
                    self.spent += cost_of(Path(kept))
                    return dataclasses.replace(done, resumed=attempt > 0, cost=cost_of(Path(kept)))
        return GameResult(job.seed, kept, interrupted=True, key=job.key)
