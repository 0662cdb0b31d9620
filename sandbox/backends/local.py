"""The local backend: today's batch runner (serial, or a process pool), as a Backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sandbox.batch import BatchResult, GameJob, GameResult, run_batch


class LocalBackend:
    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def start(self) -> None:
        """Nothing to connect to: worker processes start with the batch."""

    def close(self) -> None:
        """Nothing left open: the pool closes with the batch."""

    def run(
        self, jobs: Sequence[GameJob], on_result: Callable[[GameResult], None]
    ) -> BatchResult:
        return run_batch(jobs, self.workers, on_result)
