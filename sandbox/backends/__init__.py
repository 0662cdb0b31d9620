"""Where the games of a batch are played: a backend takes plain-data game jobs
and hands back each game's result as it finishes.

- ``local`` (the default): this machine, in-process or in worker processes
  (sandbox/batch.py); needs nothing beyond the sandbox itself.
- ``ray``: games as tasks on a Ray cluster (sandbox/backends/ray_backend.py);
  needs the ``ray`` extra, imported only when this backend is chosen.

This package's ``__init__`` imports nothing heavy: the LLM client imports
``sandbox.backends.gate`` on every seat's process.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sandbox.backends.limits import Limit
    from sandbox.batch import BatchResult, GameJob, GameResult

BACKENDS = ("local", "ray")
TRANSCRIPT_MODES = ("send", "shared")


class BackendError(ValueError):
    """A backend that cannot be used as asked (shown as one error line, exit 2)."""


class Backend(Protocol):
    """Plays jobs; ``on_result`` sees each result as its game finishes. Ctrl-C
    stops the batch with resumable transcripts (``BatchResult.interrupted``)."""

    name: str

    def start(self) -> None:
        """Connect (or start what the backend needs); BackendError if it cannot."""

    def close(self) -> None:
        """Release what ``start`` took."""

    def run(
        self, jobs: Sequence[GameJob], on_result: Callable[[GameResult], None]
    ) -> BatchResult: ...


@dataclass(frozen=True)
class BackendOptions:
    """What the command line chose; plain data."""

    name: str = "local"
    workers: int = 1  # local: worker processes; ray: games in flight (≤ 1: one per cluster CPU)
    address: str | None = None  # ray: None starts a local cluster; "auto", "ray://host:port"
    transcripts: str = "send"  # ray: "send" back to the driver, or "shared" storage at --out
    limits: dict[str, Limit] | None = None
    max_cost: float | None = None  # stop starting games once this much is spent (USD)


def backend_for(options: BackendOptions) -> Backend:
    if options.name not in BACKENDS:
        raise BackendError(f"--backend: '{options.name}' is unknown; allowed: local, ray")
    if options.transcripts not in TRANSCRIPT_MODES:
        raise BackendError(
            f"--transcripts: '{options.transcripts}' is unknown; allowed: send, shared"
        )
    if options.name == "local":
        ray_only = {
            "--address": options.address is not None,
            "--limit/--rpm": bool(options.limits),
            "--max-cost": options.max_cost is not None,
            "--transcripts shared": options.transcripts != "send",
        }
        for option, given in ray_only.items():
            if given:
                raise BackendError(f"{option} needs --backend ray")
        from sandbox.backends.local import LocalBackend

        return LocalBackend(options.workers)
    from sandbox.backends.ray_backend import RayBackend, require_ray

    require_ray()
    return RayBackend(options)
