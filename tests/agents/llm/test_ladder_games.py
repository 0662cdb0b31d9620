"""The structured-output ladder over whole games: a provider that refuses every
``response_format`` (HTTP 400) makes each seat step down to the prompt rung
once, recorded, and the game plays to its end with no invalid fallback; a
forced rung is used as given; a model the capability table puts on the
prompt rung is never sent a format at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.seat import FALLBACK_INVALID
from sandbox.models.fake import FakeLLMServer
from sandbox.session import play_game
from sandbox.session.gamefile import parse_config
from tests.agents.llm.wire_proxy import Behaviour, WireProxy

KEY_VAR = "SANDBOX_TEST_LADDER_KEY"


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=4) as server:
        yield server


def killer(seat: dict[str, Any], seed: int, day_limit: int = 2) -> dict[str, Any]:
    return {
        "variant": "killer",
        "seed": seed,
        "rules": {"players": 11, "day_limit": day_limit},
        "default_agent": {"kind": "llm", "timeout_s": 20, **seat},
        "llm": {"max_repairs": 2, "retry_max_wait_s": 0.05},
    }


def calls_of(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line["type"] == "call"]


def test_a_provider_refusing_every_format_plays_a_whole_game_on_the_prompt_rung(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    with WireProxy(fake, Behaviour(reasoning=False, reject_format=True)) as proxy:
        seat = {"model": "fake/legal-random", "api_base": proxy.base_url}
        record = play_game(parse_config(killer(seat, 21)), 21, tmp_path)
    assert record.outcome is not None and record.outcome.reason != "aborted"
    assert record.stats.fallback_count(FALLBACK_INVALID) == 0
    assert record.stats.fallback_count() == 0
    calls = calls_of(Path(str(record.path)))
    for seat_no in range(1, 12):
        mine = [c for c in calls if c["seat"] == seat_no]
        # Our own servers start on the json rung (llama.cpp form): refused once, then prompt.
        assert mine[0]["mode"] == "json" and mine[0]["format_retry"] == {
            "refused": "json",
            "next": "prompt",
        }
        assert {c["mode"] for c in mine[1:]} == {"prompt"}
        assert all('"properties"' in c["messages"][-1]["content"] for c in mine[1:])
    assert proxy.refused == 11
    assert sum("response_format" in b for b in proxy.bodies) == 11


@pytest.mark.parametrize("structured", ["prompt", "none"])
def test_a_forced_prompt_rung_sends_no_format(
    structured: str, fake: FakeLLMServer, tmp_path: Path
) -> None:
    with WireProxy(fake, Behaviour(reasoning=False, reject_format=True)) as proxy:
        seat = {"model": "fake/legal-random", "api_base": proxy.base_url, "structured": structured}
        record = play_game(parse_config(killer(seat, 22, day_limit=1)), 22, tmp_path)
    assert record.outcome is not None and record.stats.fallback_count() == 0
    assert proxy.refused == 0 and not any("response_format" in b for b in proxy.bodies)
    assert {c["mode"] for c in calls_of(Path(str(record.path)))} == {"prompt"}


def test_a_model_the_table_puts_on_the_prompt_rung_plays_without_a_format(
    fake: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DeepSeek's reasoner takes no JSON mode (the capability table): through
    litellm it is never sent a response_format nor the temperature it ignores,
    and it reasons on its own (the proxy's reasoning is recorded)."""
    monkeypatch.setenv(KEY_VAR, "sk-test-ladder-0123456789")
    with WireProxy(fake, Behaviour(reject_format=True)) as proxy:
        seat = {
            "model": "openai/deepseek-reasoner",
            "api_base": proxy.base_url,
            "api_key_env": KEY_VAR,
            "temperature": 0.3,
        }
        record = play_game(parse_config(killer(seat, 23, day_limit=1)), 23, tmp_path)
    assert record.outcome is not None and record.stats.fallback_count() == 0
    assert proxy.refused == 0
    assert not any("response_format" in b or "temperature" in b for b in proxy.bodies)
    calls = calls_of(Path(str(record.path)))
    assert {c["mode"] for c in calls} == {"prompt"}
    assert all(c["reasoning"].startswith("THOUGHT") for c in calls)


def test_a_remote_model_steps_down_from_schema_through_json_to_prompt(
    fake: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpt-4o takes a strict schema by litellm's table; a provider that refuses
    every format makes each seat's first decision step down twice, recorded
    on the refused calls, and every later call go on the prompt rung."""
    monkeypatch.setenv(KEY_VAR, "sk-test-ladder-0123456789")
    with WireProxy(fake, Behaviour(reasoning=False, reject_format=True)) as proxy:
        seat = {"model": "openai/gpt-4o", "api_base": proxy.base_url, "api_key_env": KEY_VAR}
        record = play_game(parse_config(killer(seat, 24, day_limit=1)), 24, tmp_path)
    assert record.outcome is not None and record.stats.fallback_count() == 0
    calls = calls_of(Path(str(record.path)))
    for seat_no in range(1, 12):
        mine = [c for c in calls if c["seat"] == seat_no]
        assert [c["mode"] for c in mine[:3]] == ["schema", "json", "prompt"]
        assert [c.get("format_retry", {}).get("next") for c in mine[:2]] == ["json", "prompt"]
        assert {c["mode"] for c in mine[2:]} == {"prompt"}
    formats = [b["response_format"]["type"] for b in proxy.bodies if "response_format" in b]
    assert sorted(set(formats)) == ["json_object", "json_schema"] and proxy.refused == 22
