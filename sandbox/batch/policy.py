"""How many games a batch plays at once, and where: the one policy that
``sandbox batch`` and ``sandbox study`` both follow (docs/cli.md).

- Bots only: one game per worker process (the referee and the bots need a CPU
  each, so more processes are what helps).
- LLM seats over HTTP: ``LLM_GAMES_IN_FLIGHT`` games per worker (a game waits on
  its provider almost all the time).
- A local model: one worker and one game in flight, whatever was asked (the
  embedded server already keeps every core busy with one game's sealed
  decisions, and each worker would load its own copy).
- A human seat: one game at a time (a person plays one game).
- The same on Ray: with more than one game in flight each Ray worker is an
  async actor playing that many games (sandbox/batch/backends/ray_worker.py);
  with one, each game is a Ray task of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from sandbox.models.local import is_local_model
from sandbox.session.agent_specs import AgentSpec, LLMSpec
from sandbox.session.gamefile import LoadedConfig

# Games each worker plays at once when LLM seats call a provider (docs/cli.md).
LLM_GAMES_IN_FLIGHT = 16

LOCAL_MODEL_NOTE = "note: a local model already keeps the cores busy; playing with --jobs 1"


class BatchOptionError(ValueError):
    """A batch option that does not fit the game file or backend (one error line)."""


@dataclass(frozen=True)
class Capacity:
    """How many games play at once: ``workers`` (local: worker processes; Ray:
    workers on the cluster, ≤ 1 for one per cluster CPU) and ``in_flight``
    games per worker."""

    workers: int
    in_flight: int
    # --jobs asked for several workers but a local model plays: one worker it is.
    capped: bool = False


def capacity(
    specs: Iterable[AgentSpec], jobs: int, games_in_flight: int | None, backend: str
) -> Capacity:
    """The policy for games seating ``specs`` (every agent entry they use), with
    ``--jobs``, ``--games-in-flight`` and ``--backend`` as given. Raises
    BatchOptionError for an option the backend cannot honour."""
    specs = list(specs)
    in_flight = in_flight_for(specs, games_in_flight, backend)
    if backend != "local":
        return Capacity(jobs, in_flight)  # the cluster's scheduler reads --jobs itself
    workers = worker_count(jobs)
    capped = workers > 1 and uses_local_model(specs)
    return Capacity(1 if capped else workers, in_flight, capped)


def in_flight_for(specs: Iterable[AgentSpec], requested: int | None, backend: str = "local") -> int:
    """How many games each worker plays at once, given every agent entry the
    games seat (the rules are in this module's docstring; the same on every
    backend, so ``backend`` only documents the call)."""
    specs = list(specs)
    if uses_local_model(specs) or any(s.kind == "human" for s in specs):
        return 1
    if requested is not None:
        return requested
    return LLM_GAMES_IN_FLIGHT if any(isinstance(s, LLMSpec) for s in specs) else 1


def uses_local_model(specs: LoadedConfig | Iterable[AgentSpec]) -> bool:
    """Whether any seat (of a game file, or among ``specs``) plays a local model."""
    if isinstance(specs, LoadedConfig):
        specs = agent_specs(specs)
    return any(isinstance(s, LLMSpec) and is_local_model(s.model) for s in specs)


def worker_count(jobs: int) -> int:
    """``--jobs``: that many worker processes, 0 for one per CPU."""
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def agent_specs(loaded: LoadedConfig) -> list[AgentSpec]:
    """Every agent entry of a game file, the default agent first."""
    return [loaded.file.default_agent, *loaded.file.agent]


def seats_a_human(loaded: LoadedConfig) -> bool:
    return any(s.kind == "human" for s in agent_specs(loaded))


def first_seed(loaded: LoadedConfig, seed: int | None) -> int:
    """--seed, else the game file's seed, else 0 (a batch is always reproducible)."""
    if seed is not None:
        return seed
    return loaded.file.seed if loaded.file.seed is not None else 0
