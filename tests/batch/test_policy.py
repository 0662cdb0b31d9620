"""The batch policy (sandbox/batch/policy.py) that ``batch`` and ``study`` share,
and the local backend: a real Backend, chosen like any other."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.batch.backends import BackendError, BackendOptions, backend_for, start_backend
from sandbox.batch.backends.local import LocalBackend
from sandbox.batch.jobs import GameResult
from sandbox.batch.policy import (
    LLM_GAMES_IN_FLIGHT,
    agent_specs,
    capacity,
    worker_count,
)
from sandbox.batch.run import jobs_for
from sandbox.session.gamefile import parse_config

BOTS = {"variant": "killer", "rules": {"players": 11}}
FAKE = {**BOTS, "default_agent": {"kind": "llm", "model": "fake/legal-random"}}
LOCAL = {**BOTS, "agent": [{"kind": "llm", "model": "local/smollm2", "seats": [2]}]}


def test_bots_play_one_game_per_worker_and_llm_seats_many() -> None:
    bots = capacity(agent_specs(parse_config(BOTS)), 3, None, "local")
    assert (bots.workers, bots.in_flight, bots.capped) == (3, 1, False)
    fake = capacity(agent_specs(parse_config(FAKE)), 2, None, "local")
    assert (fake.workers, fake.in_flight) == (2, LLM_GAMES_IN_FLIGHT)
    assert capacity(agent_specs(parse_config(FAKE)), 0, 4, "local").workers == worker_count(0)


def test_a_local_model_means_one_worker_and_one_game_in_flight() -> None:
    local = capacity(agent_specs(parse_config(LOCAL)), 4, 8, "local")
    assert (local.workers, local.in_flight, local.capped) == (1, 1, True)
    alone = capacity(agent_specs(parse_config(LOCAL)), 1, None, "local")
    assert alone.workers == 1 and not alone.capped  # nothing was lowered: no note


def test_ray_reads_jobs_itself_and_takes_games_in_flight() -> None:
    ray = capacity(agent_specs(parse_config(FAKE)), 0, None, "ray")
    assert (ray.workers, ray.in_flight) == (0, LLM_GAMES_IN_FLIGHT)  # 0: one per cluster CPU
    asked = capacity(agent_specs(parse_config(FAKE)), 2, 4, "ray")
    assert (asked.workers, asked.in_flight, asked.capped) == (2, 4, False)
    bots = capacity(agent_specs(parse_config(BOTS)), 0, None, "ray")
    assert bots.in_flight == 1  # bots: one game per Ray task, as before


def test_the_local_backend_is_a_backend_like_any_other(tmp_path: Path) -> None:
    chosen = start_backend("local", 1, in_flight=1)
    assert isinstance(chosen, LocalBackend) and chosen.name == "local"
    loaded = parse_config({**BOTS, "default_agent": {"kind": "baseline"}})
    seen: list[GameResult] = []
    result = chosen.run(jobs_for(loaded, [5, 6], tmp_path), seen.append)
    chosen.close()
    assert [r.seed for r in result.results] == [5, 6] and len(seen) == 2
    assert all(r.finished for r in result.results)


def test_ray_only_options_are_refused_by_the_local_backend() -> None:
    with pytest.raises(BackendError, match="--address needs --backend ray"):
        backend_for(BackendOptions("local", 1, address="auto"))
    with pytest.raises(BackendError, match="'nowhere' is unknown"):
        backend_for(BackendOptions("nowhere"))
