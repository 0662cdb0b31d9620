"""A real Ray cluster on loopback (2 CPUs), started once per test module, and the
helpers that compare a Ray batch with the local backend's.

"Byte-identical" is judged on every line of a transcript except what a wall
clock writes: the header's ``started``, the outcome's ``ended`` and each call's
``latency_ms`` (file names carry a timestamp too, so games are matched by seed);
and each call's ``cached_tokens``: what the provider's prefix cache held, which
depends on the games the same server answered before (a worker's earlier games),
and so the outcome's sum of them (``stats.tokens_cached``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray

from sandbox.batch.backends import BackendOptions
from sandbox.batch.backends.ray import RayBackend
from sandbox.batch.run import BatchResult, GameResult, jobs_for, run_batch
from sandbox.session.gamefile import LoadedConfig, parse_config

CLOCK_FIELDS = {
    "header": ("started",),
    "outcome": ("ended",),
    "call": ("latency_ms", "cached_tokens"),
}


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level="ERROR",
    )
    try:
        yield
    finally:
        ray.shutdown()


def loaded_of(text: str) -> LoadedConfig:
    import tomllib

    return parse_config(tomllib.loads(text))


def play_local(loaded: LoadedConfig, seeds: list[int], out: Path) -> BatchResult:
    out.mkdir(parents=True, exist_ok=True)
    return run_batch(jobs_for(loaded, seeds, out), 1, lambda result: None)


def play_ray(
    loaded: LoadedConfig, seeds: list[int], out: Path, **options: Any
) -> tuple[BatchResult, RayBackend, list[GameResult]]:
    """A batch on the module's cluster; also what on_result saw, in arrival order."""
    out.mkdir(parents=True, exist_ok=True)
    backend = RayBackend(BackendOptions("ray", **options))
    seen: list[GameResult] = []
    batch = backend.run(jobs_for(loaded, seeds, out), seen.append)
    return batch, backend, seen


def comparable(path: Path) -> list[dict[str, Any]]:
    """Every line of a transcript without its wall-clock fields."""
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(text)
        for key in CLOCK_FIELDS.get(obj.get("type"), ()):
            obj.pop(key, None)
        if obj.get("type") == "outcome" and isinstance(obj.get("stats"), dict):
            obj["stats"].pop("tokens_cached", None)  # the calls' cached_tokens, summed
        lines.append(obj)
    return lines


def events_of(path: Path) -> list[dict[str, Any]]:
    return [line for line in comparable(path) if line["type"] == "event"]


def by_seed(batch: BatchResult) -> dict[int, GameResult]:
    out = {r.seed: r for r in batch.results}
    assert len(out) == len(batch.results), "a seed was counted twice"
    return out
