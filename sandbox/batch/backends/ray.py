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

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sandbox.batch.backends.base import BackendOptions, Limit
from sandbox.batch.backends.ray_actors import GameTracker, Limiter
from sandbox.batch.backends.ray_cluster import cluster_cpus, connect, lost_errors, ray_module
from sandbox.batch.backends.ray_staging import game_ident, hand_over, salvage, stage_of
from sandbox.batch.backends.ray_task import TaskOutcome, TaskPlan, play_task
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

    def close(self) -> None:
        """Shut down the cluster if this backend started it."""
        ray = ray_module()

        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
        self._task = self.tracker = self.limiter = None

    def window(self) -> int:
        """Games in flight: --jobs N > 1, else one per CPU of the cluster."""
        return self.options.workers if self.options.workers > 1 else cluster_cpus()

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
                        job = hand_over(job, self.options.transcripts, self.tracker)
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
        return self._task.remote(job, plan)

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
        for ref, (job, _) in running.items():
            try:
                result = self._land(job, ray.get(ref, timeout=STOP_WAIT_S))
            except Exception:  # cancelled before it could answer: take what it left
                result = GameResult(
                    job.seed,
                    salvage(job, self.options.transcripts, self.tracker),
                    interrupted=True,
                    key=job.key,
                )
            if result.ident not in seen:
                batch.results.append(result)
