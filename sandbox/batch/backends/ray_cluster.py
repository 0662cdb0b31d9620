"""The Ray backend's hold on Ray itself: importing it on first use, joining a
cluster at ``--address`` or starting one on this machine, and telling a lost
worker from a failed game. Only the Ray backend's modules import this one, so
``--backend local`` never loads Ray."""

from __future__ import annotations

import importlib
from typing import Any

from sandbox.batch.backends.base import BackendError
from sandbox.batch.run import error_line


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


def connect(address: str | None, workers: int) -> bool:
    """Join the cluster at ``address``, or start one on this machine (with
    ``workers`` CPUs when more than one is asked for, else all of them).
    Returns whether this call started Ray (and so should shut it down)."""
    ray = ray_module()
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": "ERROR",
        "log_to_driver": False,  # a game's failure comes back in its result
    }
    try:
        if address is None:
            cpus = workers if workers > 1 else None
            ray.init(num_cpus=cpus, _node_ip_address="127.0.0.1", **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise BackendError(f"--address {address}: {error_line(err)}") from None
    return True


def cluster_cpus() -> int:
    """The CPUs of the cluster joined (at least one)."""
    return max(1, int(ray_module().cluster_resources().get("CPU", 1)))


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
        "RayActorError",  # an actor playing games in flight died (ActorDiedError, ...)
    )
    return tuple(getattr(rx, name) for name in names if hasattr(rx, name))
