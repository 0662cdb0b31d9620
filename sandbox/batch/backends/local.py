"""The ``local`` backend: this machine plays the games, in this process or in
worker processes (sandbox/batch/workers.py), as many at once as the batch
policy (sandbox/batch/policy.py) chose."""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.batch.backends.base import Backend, BackendOptions
from sandbox.batch.jobs import Admit, BatchResult, GameJob, Halt, OnResult, admit_all, never_halt
from sandbox.batch.run import run_batch


class LocalBackend(Backend):
    """``sandbox.batch.run.run_batch`` as a backend: nothing to start or release
    (the workers are started per batch, by ``run``, and end with it)."""

    name = "local"

    def __init__(self, options: BackendOptions) -> None:
        self.options = options

    def run(
        self,
        jobs: Sequence[GameJob],
        on_result: OnResult,
        admit: Admit = admit_all,
        halt: Halt = never_halt,
    ) -> BatchResult:
        return run_batch(jobs, self.options.workers, on_result, admit, halt, self.options.in_flight)
