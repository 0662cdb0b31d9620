"""Where the games of a batch are played: a backend takes plain-data game jobs
and hands back each game's result as it finishes (the contract: ``base``).

- ``local`` (the default): this machine, in-process or in worker processes:
  ``sandbox.batch.run_batch`` itself; needs nothing beyond the sandbox.
- ``ray``: games as tasks on a Ray cluster (sandbox/backends/ray_backend.py);
  needs the ``ray`` extra, imported only when this backend is chosen.

This package imports nothing heavy: the LLM client imports
``sandbox.backends.gate`` in every seat's process.
"""

from __future__ import annotations

from sandbox.backends.base import (
    BACKENDS,
    TRANSCRIPT_MODES,
    Backend,
    BackendError,
    BackendOptions,
)

__all__ = ["BACKENDS", "TRANSCRIPT_MODES", "Backend", "BackendError", "BackendOptions",
           "backend_for"]


def backend_for(options: BackendOptions) -> Backend | None:
    """The chosen backend; None for ``local``, which is sandbox.batch.run_batch itself.
    Options that only the Ray backend reads are refused without it."""
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
        return None
    from sandbox.backends.ray_backend import RayBackend, require_ray

    require_ray()
    return RayBackend(options)
