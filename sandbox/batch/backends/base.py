"""The backend contract: what a backend is given (plain-data jobs and options),
what it hands back (each game's result as it finishes), and the one error a
backend raises. Imports nothing heavy, so the command line loads it cheaply."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sandbox.batch.jobs import Admit, BatchResult, GameJob, GameResult, Halt

BACKENDS = ("local", "ray")
TRANSCRIPT_MODES = ("send", "shared")


@dataclass(frozen=True)
class Limit:
    """A cluster-wide cap for one provider or model (``--limit-concurrency``,
    ``--limit-rpm``; enforced by :mod:`sandbox.batch.backends.limits`)."""

    concurrency: int | None = None  # calls in flight at once
    rpm: int | None = None  # calls started in any 60-second window


class BackendError(ValueError):
    """A backend that cannot be used as asked (shown as one error line, exit 2)."""


class Backend(Protocol):
    """Plays jobs; ``on_result`` sees each result as its game finishes. Ctrl-C
    stops the batch with resumable transcripts (``BatchResult.interrupted``)."""

    name: str

    def start(self) -> None:
        """Connect (or start what the backend needs); BackendError if it cannot.
        Default (a backend that subclasses this one): nothing to start, its games'
        workers or pages come and go with each ``run``."""
        return None

    def close(self) -> None:
        """Release what ``start`` took. Default: nothing outlives ``run``."""
        return None

    def run(
        self,
        jobs: Sequence[GameJob],
        on_result: Callable[[GameResult], None],
        admit: Admit = ...,
        halt: Halt = ...,
    ) -> BatchResult:
        """As ``sandbox.batch.run.run_batch``: ``admit`` may hold a job back while others
        run, ``halt`` stops new games (a study's provider limits and cost cap)."""


@dataclass(frozen=True)
class BackendOptions:
    """What the command line chose; plain data."""

    name: str = "local"
    workers: int = 1  # local: worker processes; ray: games in flight (≤ 1: one per cluster CPU)
    address: str | None = None  # ray: None starts a local cluster; "auto", "ray://host:port"
    transcripts: str = "send"  # ray: "send" back to the driver, or "shared" storage at --out
    limits: dict[str, Limit] | None = None
    max_cost: float | None = None  # stop starting games once this much is spent (USD)
    in_flight: int = 1  # local: games each worker process plays at once
