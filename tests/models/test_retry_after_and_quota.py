"""A provider's 429s, end to end on loopback: ``Retry-After`` is honoured and
holds every seat calling that provider off; a spent quota stops the game with
a resumable transcript, and a batch starts no further game (a re-run in the
same folder finishes what was cut)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sandbox.models.gate as gate
from sandbox.batch.run import jobs_for, run_batch, skip_done
from sandbox.models.backoff import provider_key
from sandbox.models.client import CallSettings, ModelClient, QuotaExhausted, RetryPolicy
from sandbox.models.endpoints import Endpoint
from sandbox.models.fake import FakeLLMServer
from sandbox.session import play_game, resume
from sandbox.session.gamefile import parse_config
from sandbox.transcript import read_transcript
from tests.agents.llm.wire_proxy import Behaviour, WireProxy

HI = [{"role": "user", "content": 'Answer {"properties": {"x": {"type": "integer"}}}'}]


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=2) as server:
        yield server


def client_for(proxy: WireProxy, attempts: int = 3) -> ModelClient:
    endpoint = Endpoint("openai/fake-legal-random", proxy.base_url, "k", "fake", "openai")
    return ModelClient(
        endpoint, CallSettings(timeout_s=5.0), RetryPolicy(attempts, 0.01, 30.0), 4, []
    )


async def test_retry_after_is_waited_and_holds_every_seat_of_the_provider(
    fake: FakeLLMServer,
) -> None:
    with WireProxy(fake, Behaviour(reasoning=False)) as proxy:
        proxy.rate_limit("0.6")
        first, second = client_for(proxy), client_for(proxy)
        first_calls: list[dict[str, Any]] = []
        second_calls: list[dict[str, Any]] = []
        task = asyncio.create_task(first.complete(HI, 0, first_calls))
        key = provider_key(first.endpoint.model, first.endpoint.api_base)
        while gate.held_for(key) == 0 and not task.done():
            await asyncio.sleep(0.005)  # until the 429 arrived and set the hold
        await second.complete(HI, 0, second_calls)
        await task
    assert first_calls[0]["retry_after_s"] == 0.6 and "RateLimitError" in first_calls[0]["error"]
    assert first_calls[1]["raw"] is not None
    # The other seat never saw the 429, yet waited for the provider's time.
    assert len(second_calls) == 1 and second_calls[0]["held_ms"] > 0


async def test_a_retry_after_beyond_the_budget_fails_the_call_at_once(fake: FakeLLMServer) -> None:
    with WireProxy(fake, Behaviour(reasoning=False)) as proxy:
        proxy.rate_limit("3600")
        client = client_for(proxy, attempts=4)
        calls: list[dict[str, Any]] = []
        with pytest.raises(Exception, match="RateLimitError"):
            await client.complete(HI, 0, calls)
    assert len(calls) == 1 and calls[0]["retry_after_s"] == 3600
    # Refused, not shared: no later call of this process sleeps an hour for it
    # (it once held the next test's games, on a server that reused the port).
    assert gate.held_for(provider_key(client.endpoint.model, client.endpoint.api_base)) == 0


async def test_a_spent_quota_is_never_retried(fake: FakeLLMServer) -> None:
    with WireProxy(fake, Behaviour(reasoning=False)) as proxy:
        proxy.quota(times=5)
        calls: list[dict[str, Any]] = []
        with pytest.raises(QuotaExhausted, match="quota"):
            await client_for(proxy, attempts=4).complete(HI, 0, calls)
    assert len(calls) == 1 and len(proxy.bodies) == 1


def killer(proxy: WireProxy, out: Path) -> dict[str, Any]:
    return {
        "variant": "killer",
        "rules": {"players": 11, "day_limit": 1},
        "default_agent": {"kind": "baseline"},
        "agent": [
            {
                "kind": "llm",
                "role": "killer",
                "model": "fake/legal-random",
                "api_base": proxy.base_url,
                "timeout_s": 10,
            }
        ],
        "llm": {"retry_max_wait_s": 0.02},
        "run": {"out": str(out)},
    }


def test_a_spent_quota_stops_the_batch_and_a_rerun_finishes_it(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with WireProxy(fake, Behaviour(reasoning=False)) as proxy:
        loaded = parse_config(killer(proxy, out))
        jobs = jobs_for(loaded, [1, 2, 3], out)
        proxy.quota(times=10_000)  # spent from the first call on
        seen: list[Any] = []
        batch = run_batch(jobs, 1, seen.append)
        assert batch.stopped is not None and "quota" in batch.stopped
        assert len(batch.results) == 1 and batch.results[0].stop is not None
        cut = batch.results[0]
        assert cut.transcript is not None and not read_transcript(Path(cut.transcript)).finished
        # The quota is back: the same batch again resumes the cut game and plays the rest.
        proxy.behaviour.faults.clear()
        todo, done = skip_done(jobs, out)
        assert not done and todo[0].resume == cut.transcript
        again = run_batch(todo, 1, seen.append)
    assert again.stopped is None and len(again.finished) == 3
    assert read_transcript(Path(cut.transcript)).finished


def test_a_spent_quota_mid_game_leaves_a_transcript_resume_finishes(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with WireProxy(fake, Behaviour(reasoning=False)) as proxy:
        loaded = parse_config(killer(proxy, out))
        proxy.quota(times=10_000)
        with pytest.raises(QuotaExhausted):
            play_game(loaded, 4, out)
        (path,) = out.glob("*.jsonl")
        assert not read_transcript(path).finished
        assert not [json.loads(x) for x in path.read_text().splitlines() if '"outcome"' in x[:20]]
        proxy.behaviour.faults.clear()
        record = resume(path)
    assert record.outcome is not None and read_transcript(path).finished
