"""Where the games of a batch are played: a backend takes plain-data game jobs
and hands back each game's result as it finishes (the contract: ``base``).

- ``local`` (the default): this machine, in-process or in worker processes
  (sandbox/batch/backends/local.py); needs nothing beyond the sandbox.
- ``ray``: games as tasks on a Ray cluster (sandbox/batch/backends/ray.py);
  needs the ``ray`` extra, imported only when this backend is chosen.

This package imports neither backend until one is chosen, so the command line
loads it cheaply.
"""

from __future__ import annotations

from collections.abc import Sequence

from sandbox.batch.backends.base import (
    BACKENDS,
    TRANSCRIPT_MODES,
    Backend,
    BackendError,
    BackendOptions,
)

__all__ = [
    "BACKENDS",
    "TRANSCRIPT_MODES",
    "Backend",
    "BackendError",
    "BackendOptions",
    "backend_for",
    "backend_notes",
    "start_backend",
]


def backend_for(options: BackendOptions) -> Backend:
    """The chosen backend, not started yet. Options that only the Ray backend
    reads are refused without it."""
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
        from sandbox.batch.backends.local import LocalBackend

        return LocalBackend(options)
    from sandbox.batch.backends.ray import RayBackend
    from sandbox.batch.backends.ray_cluster import require_ray

    require_ray()
    return RayBackend(options)


def start_backend(
    name: str,
    workers: int,
    address: str | None = None,
    transcripts: str = "send",
    limit: Sequence[str] = (),
    rpm: Sequence[str] = (),
    max_cost: float | None = None,
    in_flight: int = 1,
) -> Backend:
    """The command-line options as a started backend (a Ray cluster joined).
    ``workers`` and ``in_flight`` come from the batch policy
    (sandbox/batch/policy.py). Raises BackendError, one line, on a bad choice."""
    from sandbox.batch.backends.limits import parse_limits

    limits = parse_limits(limit, rpm)
    options = BackendOptions(name, workers, address, transcripts, limits, max_cost, in_flight)
    chosen = backend_for(options)
    chosen.start()
    return chosen


def backend_notes(chosen: Backend) -> list[str]:
    """What a backend did beyond the results, for stderr: games resumed after a
    lost worker, what the calls cost, why no further game started."""
    lines = [
        f"note: game {ident} was resumed on another worker after its worker was lost"
        for ident in getattr(chosen, "resumed", [])
    ]
    spent = getattr(chosen, "spent", None)
    if spent is not None:
        lines.append(f"{chosen.name}: the games' calls cost ${spent:.4f}")
    stopped = getattr(chosen, "stopped", None)
    if stopped:
        lines.append(f"note: no further game started: {stopped}")
    return lines
