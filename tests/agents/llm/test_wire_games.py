"""Whole games on each wire of the fake provider (OpenAI chat, Anthropic
Messages, Gemini generateContent), every seat a reasoning model through
litellm's own client for that provider. What the transcript records for each
answered call (tokens, cached tokens, reasoning tokens, reasoning text, the
ladder's rung) must equal what the fake sent, the reasoning must stay on the
call lines, and the cost must be litellm's price of the usage the fake sent.

Runs once the wire-faithful fakes are in (sandbox/models/fake/wire.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sandbox.models.fake.wire")

from sandbox.models import remote
from sandbox.models.fake import FakeLLMServer
from sandbox.session import play_game
from sandbox.session.gamefile import parse_config
from tests.agents.llm.test_reasoning_games import lines_of, reasoning_leaks

KEY_VAR = "SANDBOX_TEST_WIRE_KEY"
# wire name -> (model, reasoning setting, the rung the seat should stand on, the
# fake's modes that rung travels as)
WIRES: dict[str, tuple[str, dict[str, Any], str, set[str]]] = {
    "openai_chat": ("openai/o3-mini", {"reasoning_effort": "low"}, "schema", {"json_schema"}),
    # While thinking, Claude refuses the forced tool litellm's JSON uses: the prompt rung.
    "anthropic": ("anthropic/claude-sonnet-4-5", {"thinking_budget": 1024}, "prompt", {"text"}),
    "gemini": ("gemini/gemini-2.5-flash", {"reasoning_effort": "low"}, "schema", {"json_schema"}),
}


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=6) as server:
        yield server


def game_file(variant: str, seat: dict[str, Any], seed: int) -> dict[str, Any]:
    rules: dict[str, Any] = {"players": 11, "day_limit": 2} if variant == "killer" else {}
    return {
        "variant": variant,
        "seed": seed,
        "rules": rules,
        "default_agent": {"kind": "llm", "timeout_s": 30, **seat},
        "llm": {"max_repairs": 2, "retry_max_wait_s": 0.05},
    }


def expected_cost(model: str, usage: Any) -> float:
    """litellm's price of the usage the fake sent (cached tokens at the cached rate)."""
    litellm = remote.litellm_module()
    prompt, completion = litellm.cost_per_token(
        model=model,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cache_read_input_tokens=usage.cached_tokens,
        cache_creation_input_tokens=usage.cache_creation_tokens,
    )
    return float(prompt + completion)


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_whole_game_on_each_wire_records_what_the_fake_sent(
    wire: str,
    variant: str,
    fake: FakeLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_VAR, "sk-test-wire-0123456789")
    model, reasoning, rung, fake_modes = WIRES[wire]
    base = fake.base_url if wire == "openai_chat" else fake.root_url
    seat = {"model": model, "api_base": base, "api_key_env": KEY_VAR, **reasoning}
    record = play_game(parse_config(game_file(variant, seat, 31)), 31, tmp_path)
    assert record.outcome is not None and record.outcome.reason != "aborted"
    assert record.stats.fallback_count("provider") == 0
    path = Path(str(record.path))
    # Every answer was read and fitted the schema: what the referee refused, it
    # refused by a rule no schema states (FF-14: accuse a seat of a faction it denied).
    refused = [c["error"] for c in lines_of(path) if c["type"] == "call" and c.get("error")]
    assert all(e.startswith("invalid: [FF-") for e in refused), refused
    calls = [c for c in lines_of(path) if c["type"] == "call" and c.get("raw") is not None]
    sent = {s.thinking: s for s in fake.sent_on(wire) if s.status == 200}
    assert sent and all(s.thinking for s in sent.values())  # every answer reasoned
    assert sorted(c["reasoning"] for c in calls) == sorted(sent)  # each recorded once
    for call in calls:
        said = sent[call["reasoning"]]
        assert said.usage is not None
        usage = said.usage
        assert call["tokens_in"] == usage.prompt_tokens
        assert call["tokens_out"] == usage.completion_tokens
        assert call["cached_tokens"] == usage.cached_tokens
        assert call["reasoning_tokens"] == usage.reasoning_tokens > 0
        assert call["mode"] == rung and said.mode in fake_modes
        assert call["cost"] == pytest.approx(expected_cost(model, usage), rel=1e-6)
    assert reasoning_leaks(path) == []
