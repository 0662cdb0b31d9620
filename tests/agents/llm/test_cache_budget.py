"""Prompt caching and the context budget, end to end on the fake provider:
its simulated prefix cache reports cached_tokens, the seat records them; a
prompt over the provider's window is retried once with a tighter budget."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sandbox.agents.llm.settings import LLMSettings
from sandbox.core.game import Game
from sandbox.core.seat import FALLBACK_PROVIDER
from sandbox.games.registry import get_variant
from sandbox.models import remote
from sandbox.models.client import CallSettings, ModelClient, RetryPolicy
from sandbox.models.endpoints import Endpoint
from sandbox.models.fake import FakeLLMServer
from sandbox.models.fake.server import PrefixCache, common_prefix
from sandbox.models.remote import needs_cache_control, with_cache_control
from sandbox.session.agent_specs import LLMSpec
from sandbox.session.gamefile import GameFile, LoadedConfig
from sandbox.session.runner import Runner
from sandbox.transcript import TranscriptWriter, read_transcript
from tests.agents.llm.conftest import FAST_RETRY, llm_spec, make_llm_agent, play_toy, toy_loaded


def test_prefix_cache_finds_the_longest_prefix_among_all_prompts() -> None:
    cache = PrefixCache(size=3)
    assert cache.lookup_and_add("abcdef") == 0
    assert cache.lookup_and_add("abcxyz") == 3
    assert cache.lookup_and_add("zzz") == 0
    assert cache.lookup_and_add("abcdeQ") == 5  # abcdef, not the later abcxyz
    assert cache.lookup_and_add("abcdef") == 5  # evicted (size 3): only abcdeQ is left
    assert common_prefix("same", "same") == 4 and common_prefix("", "x") == 0


async def test_cached_tokens_are_reported_recorded_and_counted(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    loaded = toy_loaded(llm_spec(fake, "legal-random"), seats=5)
    with TranscriptWriter(tmp_path / "t.jsonl") as writer:
        writer.header({"variant": "toy", "seed": 1, "roles": {}})
        await play_toy(loaded, writer=writer)
    calls = read_transcript(tmp_path / "t.jsonl").calls
    assert len(calls) >= 6
    assert sum(c["cached_tokens"] for c in calls) == fake.cached_tokens > 0
    previous: dict[int, str] = {}
    for call in calls:
        text = "".join(m["content"] for m in call["messages"])
        assert 0 <= call["cached_tokens"] <= call["tokens_in"]
        if call["seat"] in previous:  # the seat's own last prompt is in the cache
            assert call["cached_tokens"] >= common_prefix(text, previous[call["seat"]]) // 4
        previous[call["seat"]] = text
    later = [c for c in calls if c["repair"] == 0][5:]  # after each seat's first call
    assert later and all(c["cached_tokens"] > c["tokens_in"] // 2 for c in later)


def test_cache_control_marks_the_system_text_and_the_record() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "record|question"},
        {"role": "assistant", "content": "{}"},
        {"role": "user", "content": "repair"},
    ]
    marked = with_cache_control(messages, len("record|"))
    assert marked[0]["content"] == [
        {"type": "text", "text": "rules", "cache_control": {"type": "ephemeral"}}
    ]
    assert marked[1]["content"] == [
        {"type": "text", "text": "record|", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "question"},
    ]
    assert marked[2:] == messages[2:]
    assert needs_cache_control("anthropic/claude-sonnet-4-5")
    assert needs_cache_control("bedrock/anthropic.claude-3-haiku")
    assert not needs_cache_control("openai/gpt-4o")


class FakeLitellm:
    """Stands in for litellm: keeps the request, answers with a cached prefix."""

    def __init__(self) -> None:
        self.kwargs: dict[str, Any] = {}

    async def acompletion(self, **kwargs: Any) -> Any:
        self.kwargs = kwargs
        from types import SimpleNamespace as NS

        usage = NS(prompt_tokens=100, completion_tokens=5, cache_read_input_tokens=80)
        message = NS(content='{"pick": 2}')
        return NS(choices=[NS(message=message)], usage=usage)

    def completion_cost(self, completion_response: Any) -> float:
        return 0.5


@pytest.mark.parametrize("cache", [True, False])
async def test_anthropic_calls_carry_cache_breakpoints_only_when_on(
    monkeypatch: pytest.MonkeyPatch, cache: bool
) -> None:
    stub = FakeLitellm()
    monkeypatch.setattr(remote, "litellm_module", lambda: stub)
    endpoint = Endpoint("anthropic/claude-sonnet-4-5", None, "k", "litellm")
    settings = CallSettings(timeout_s=2.0, cache=cache)
    model = ModelClient(endpoint, settings, RetryPolicy(1, 0.01, 1.0), 2, [])
    calls: list[dict[str, Any]] = []
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "RECORD now"}]
    assert await model.complete(messages, 0, calls, cache_split=len("RECORD ")) == '{"pick": 2}'
    sent = stub.kwargs["messages"]
    if cache:
        assert sent[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
        assert sent[1]["content"][0] == {
            "type": "text",
            "text": "RECORD ",
            "cache_control": {"type": "ephemeral"},
        }
    else:
        assert sent == messages
    assert calls[0]["cached_tokens"] == 80 and calls[0]["cost"] == 0.5
    assert calls[0]["messages"] == messages  # the record keeps the plain text


def test_litellm_prices_cached_prompt_tokens_at_the_cached_rate() -> None:
    """The cost recorded per call is litellm's: cached tokens cost less."""
    litellm = remote.litellm_module()
    model = "anthropic/claude-sonnet-4-5"
    info = litellm.get_model_info(model=model)
    full_rate, cached_rate = info["input_cost_per_token"], info["cache_read_input_token_cost"]
    assert cached_rate < full_rate

    def cost(cached: int) -> float:
        usage = litellm.Usage(
            prompt_tokens=1000,
            completion_tokens=10,
            total_tokens=1010,
            prompt_tokens_details={"cached_tokens": cached},
            cache_read_input_tokens=cached,
        )
        response = litellm.ModelResponse(model=model, usage=usage)
        return float(litellm.completion_cost(completion_response=response, model=model))

    saved = cost(0) - cost(800)
    assert saved == pytest.approx(800 * (full_rate - cached_rate), rel=1e-6)


def killer_loaded(fake: FakeLLMServer, **llm: Any) -> LoadedConfig:
    spec = LLMSpec(kind="llm", model="fake/legal-random", api_base=fake.base_url, timeout_s=5.0)
    variant = get_variant("killer")
    file = GameFile(variant="killer", default_agent=spec, llm=LLMSettings(**{**FAST_RETRY, **llm}))
    return LoadedConfig(file, variant, variant.parse_config({"players": 11}))


async def play_killer(loaded: LoadedConfig, tmp_path: Path, seed: int = 3) -> list[dict[str, Any]]:
    game = Game.new(loaded.variant, loaded.game_config, seed)
    spec = loaded.file.default_agent
    agents = {s: make_llm_agent(loaded, spec, s, seed) for s in game.seats}
    try:
        with TranscriptWriter(tmp_path / "k.jsonl") as writer:
            writer.header({"variant": "killer", "seed": seed, "roles": {}})
            await Runner(game, agents, writer, abort_share=None).run()
    finally:
        await asyncio.gather(*(a.close() for a in agents.values()))
    return read_transcript(tmp_path / "k.jsonl").calls


WINDOW = 1600  # tokens: the fake's window; late Killer prompts (no rules text) exceed it


async def test_prompt_over_the_window_is_retried_once_with_a_summary(tmp_path: Path) -> None:
    with FakeLLMServer(seed=3, context_window=WINDOW) as fake:
        calls = await play_killer(killer_loaded(fake), tmp_path)
    retried = [c for c in calls if "overflow_retry" in c]
    assert retried, "no prompt went over the window: raise the game length or lower WINDOW"
    assert all("maximum context length" in c["error"] for c in retried)
    answered = [c for c in calls if c["raw"] is not None]
    assert all(c["tokens_in"] <= WINDOW for c in answered)
    assert any(c.get("summarized") for c in answered)
    # After its overflow a seat keeps the tighter budget: no fallback for it.
    assert not [c for c in calls if c.get("error") and "overflow_retry" not in c]
    assert FALLBACK_PROVIDER not in {c.get("fallback") for c in calls}


async def test_a_configured_window_fits_every_prompt_without_an_overflow(tmp_path: Path) -> None:
    with FakeLLMServer(seed=3, context_window=WINDOW) as fake:
        calls = await play_killer(killer_loaded(fake, context_window=WINDOW), tmp_path)
    assert not [c for c in calls if c.get("error")]
    assert any(c.get("summarized") for c in calls)
    assert all(c["tokens_in"] <= WINDOW for c in calls)


DENSE_WINDOW = 2400  # tokens at 2.5 characters each: day 1 fits, later days do not


async def test_a_denser_tokenizer_is_learned_so_the_window_still_fits(tmp_path: Path) -> None:
    # The provider counts 2.5 characters a token where the estimate assumes 4
    # (a small local model's tokenizer on seat numbers and JSON): each seat
    # calibrates its budget on the usage of its first call, so only a first
    # call can go over the window (retried once, tighter), never a later one.
    with FakeLLMServer(seed=3, context_window=DENSE_WINDOW, chars_per_token=2.5) as fake:
        loaded = killer_loaded(fake, context_window=DENSE_WINDOW, max_tokens=128)
        calls = await play_killer(loaded, tmp_path)
    assert any(c.get("summarized") for c in calls), "raise the game length or lower DENSE_WINDOW"
    seen: set[int] = set()
    for call in calls:
        if call.get("error"):
            assert call["seat"] not in seen, f"a later call went over: {call['request_id']}"
            assert "overflow_retry" in call
        seen.add(call["seat"])
    assert all(c["tokens_in"] <= DENSE_WINDOW for c in calls if c["raw"] is not None)
    assert FALLBACK_PROVIDER not in {c.get("fallback") for c in calls}


async def test_toy_game_closes_its_pooled_client(fake: FakeLLMServer) -> None:
    from sandbox.models import pool

    before = pool.open_clients()  # what earlier tests of the session left open
    await play_toy(toy_loaded(llm_spec(fake, "legal-random")))
    assert pool.open_clients() == before
