"""The limiter's bookkeeping (no Ray): parsing, key choice, concurrency and the
per-minute budget on a hand-driven clock."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.batch.backends.limits import Limit, LimiterCore, LimitError, key_for, parse_limits


def test_parse_limits_joins_concurrency_and_rpm_per_key() -> None:
    limits = parse_limits(["openai=4", "openai/gpt-4o=2"], ["openai=600"])
    assert limits == {"openai": Limit(4, 600), "openai/gpt-4o": Limit(2, None)}


@pytest.mark.parametrize("bad", ["openai", "=3", "openai=0", "openai=x", "openai=-1"])
def test_parse_limits_refuses_unreadable_values(bad: str) -> None:
    with pytest.raises(LimitError, match="KEY=N"):
        parse_limits([bad], [])


def test_an_exact_model_limit_wins_over_its_provider() -> None:
    limits = {"openai": Limit(4), "openai/gpt-4o": Limit(1)}
    assert key_for("openai/gpt-4o", limits) == "openai/gpt-4o"
    assert key_for("openai/fake-legal-random", limits) == "openai"
    assert key_for("anthropic/claude", limits) is None


async def test_concurrency_waits_for_a_release() -> None:
    core = LimiterCore({"p": Limit(concurrency=2)})
    await core.acquire("p", "a")
    await core.acquire("p", "b")
    third = asyncio.create_task(core.acquire("p", "c"))
    await asyncio.sleep(0.05)
    assert not third.done()  # two in flight: the third waits
    await core.release("p", "a")
    await asyncio.wait_for(third, 1.0)
    assert core.peaks() == {"p": 2}


async def test_release_holder_frees_a_dead_workers_slots() -> None:
    core = LimiterCore({"p": Limit(concurrency=1)})
    await core.acquire("p", "lost#0")
    waiting = asyncio.create_task(core.acquire("p", "next#0"))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    assert await core.release_holder("lost#0") == 1
    await asyncio.wait_for(waiting, 1.0)
    await core.release("p", "never-held")  # a release without a grant changes nothing
    assert core.peaks() == {"p": 1}


async def test_rpm_budget_holds_calls_until_the_window_moves() -> None:
    now = [1000.0]
    core = LimiterCore({"p": Limit(rpm=2)}, clock=lambda: now[0])
    await core.acquire("p", "a")
    await core.release("p", "a")
    await core.acquire("p", "a")
    await core.release("p", "a")
    third = asyncio.create_task(core.acquire("p", "a"))
    await asyncio.sleep(0.05)
    assert not third.done()  # two started in this minute
    now[0] += 60.0  # the first call leaves the window; the waiter's timer looks again
    await asyncio.wait_for(third, 2.0)
