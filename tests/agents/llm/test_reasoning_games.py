"""Whole games with reasoning-model seats, through the real client path
(LLMAgent → openai SDK or litellm → HTTP → a reasoning proxy → the fake
provider). Each answer carries a unique reasoning marker; the transcript must
record every one on its call line (referee-only) and nowhere else: not in an
event (public or private), not in any prompt of any seat, not in any seat's
view rebuilt from the transcript. Tokens and reasoning tokens recorded equal
what the proxy sent; refused parameters are warned about once per seat."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.stats import gather, summarise
from sandbox.games.registry import get_variant
from sandbox.models.fake import FakeLLMServer
from sandbox.session import play_game
from sandbox.session.gamefile import parse_config
from sandbox.transcript import read_transcript
from sandbox.transcript.audience import seat_numbers, visible_pairs
from tests.agents.llm.wire_proxy import MARK, Behaviour, WireProxy

KEY_VAR = "SANDBOX_TEST_REASONING_KEY"


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=3) as server:
        yield server


def game_file(variant: str, seat: dict[str, Any], seed: int) -> dict[str, Any]:
    rules: dict[str, Any] = {"players": 11, "day_limit": 3} if variant == "killer" else {}
    return {
        "variant": variant,
        "seed": seed,
        "rules": rules,
        "default_agent": {"kind": "llm", "timeout_s": 20, **seat},
        "llm": {"max_repairs": 2, "retry_max_wait_s": 0.05, "belief_probe": True},
    }


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def reasoning_leaks(path: Path) -> list[str]:
    """Where any reasoning text recorded on a call line shows up outside the
    ``reasoning`` fields: in an event (public or private), in any prompt (the
    seat's own included), in an answer, or in any seat's view rebuilt from the
    transcript. Empty when the reasoning stayed referee-only."""
    lines = lines_of(path)
    thoughts = {c["reasoning"] for c in lines if c["type"] == "call" and c.get("reasoning")}
    found: list[str] = []
    for number, line in enumerate(lines, 1):
        if line["type"] == "call":
            elsewhere = json.dumps([line["messages"], line.get("raw"), line.get("parsed")])
        else:
            elsewhere = json.dumps(line)
        found += [f"line {number} ({line['type']})" for t in thoughts if t in elsewhere]
    transcript = read_transcript(path)
    variant = get_variant(transcript.header["variant"])
    for seat in seat_numbers(transcript):
        view = repr(variant.build_view(seat, visible_pairs(transcript, seat)))
        found += [f"seat {seat}'s view" for t in thoughts if t in view]
    return found


def assert_reasoning_is_referee_only(path: Path, proxy: WireProxy) -> list[dict[str, Any]]:
    """Every reasoning text the proxy sent is on exactly one call line, with the
    tokens it sent, and nowhere else (:func:`reasoning_leaks`). Returns the calls."""
    calls = [line for line in lines_of(path) if line["type"] == "call"]
    answered = [c for c in calls if c.get("raw") is not None]
    sent = {s.reasoning: s for s in proxy.sent}
    assert sent and sorted(c["reasoning"] for c in answered) == sorted(sent)
    for call in answered:
        said = sent[call["reasoning"]]
        assert call["reasoning_tokens"] == said.reasoning_tokens
        assert (call["tokens_in"], call["tokens_out"]) == (said.tokens_in, said.tokens_out)
        assert call["cached_tokens"] == said.cached_tokens
    assert reasoning_leaks(path) == []
    assert MARK not in "".join(json.dumps(x) for x in lines_of(path) if x["type"] != "call")
    return calls


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_reasoning_never_leaves_the_call_lines(
    variant: str, fake: FakeLLMServer, tmp_path: Path
) -> None:
    with WireProxy(fake) as proxy:
        seat = {"model": "fake/legal-random", "api_base": proxy.base_url}
        seat["reasoning_effort"] = "high"
        record = play_game(parse_config(game_file(variant, seat, 5)), 5, tmp_path)
    assert record.outcome is not None and record.outcome.reason != "aborted"
    assert record.stats.fallback_count() == 0
    calls = assert_reasoning_is_referee_only(Path(str(record.path)), proxy)
    # The setting went out as given (a model the table does not know: passed through).
    assert all(body.get("reasoning_effort") == "high" for body in proxy.bodies)
    assert {c["mode"] for c in calls} == {"json"}
    assert not any("warnings" in c for c in calls)
    agents = lines_of(Path(str(record.path)))[0]["agents"]
    assert {a["reasoning_effort"] for a in agents.values()} == {"high"}
    assert not any("thinking_budget" in a for a in agents.values())  # unset: not written
    # sandbox stats counts them (of the output tokens; cost prices them with the rest)
    per_variant, _ = gather([Path(str(record.path))])
    figures = summarise(per_variant, 0)[variant]
    assert figures["reasoning_tokens"] == sum(s.reasoning_tokens for s in proxy.sent)
    assert figures["cached_tokens"] == sum(s.cached_tokens for s in proxy.sent)
    assert figures["tokens_out"] == sum(s.tokens_out for s in proxy.sent)


def test_o_series_seats_drop_temperature_once_per_seat_and_rename_max_tokens(
    fake: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote o-series model string through litellm: temperature is refused by
    the family (dropped, warned once per seat), max_tokens goes as
    max_completion_tokens, reasoning_effort as set; litellm prices the call
    (reasoning tokens are part of the completion it prices)."""
    monkeypatch.setenv(KEY_VAR, "sk-test-reasoning-0123456789")
    with WireProxy(fake) as proxy:
        seat = {
            "model": "openai/o3-mini",
            "api_base": proxy.base_url,
            "api_key_env": KEY_VAR,
            "temperature": 0.7,
            "max_tokens": 4000,
            "reasoning_effort": "low",
        }
        raw = game_file("killer", seat, 8)
        raw["rules"]["day_limit"] = 1
        record = play_game(parse_config(raw), 8, tmp_path)
    assert record.outcome is not None and record.stats.fallback_count() == 0
    calls = assert_reasoning_is_referee_only(Path(str(record.path)), proxy)
    assert all("temperature" not in b and "max_tokens" not in b for b in proxy.bodies)
    assert all(b["max_completion_tokens"] == 4000 for b in proxy.bodies)
    assert all(b["reasoning_effort"] == "low" for b in proxy.bodies)
    warned: dict[int, list[str]] = {}
    for call in calls:
        warned.setdefault(call["seat"], []).extend(call.get("warnings", []))
    assert len(warned) == 11
    for seat_warnings in warned.values():
        assert len(seat_warnings) == 2  # temperature dropped, max_tokens renamed: once each
        assert any(w.startswith("temperature") for w in seat_warnings)
    assert all(c["cost"] > 0 for c in calls if c.get("raw") is not None)
    assert record.stats.cost == pytest.approx(sum(c["cost"] for c in calls))


def test_litellm_prices_reasoning_tokens_with_the_completion() -> None:
    """The cost cap and stats add up call costs: the reasoning must be in them."""
    from sandbox.models import remote

    def cost(completion: int, reasoning: int) -> float:
        usage = {
            "prompt_tokens": 100,
            "completion_tokens": completion,
            "total_tokens": 100 + completion,
            "completion_tokens_details": {"reasoning_tokens": reasoning},
        }
        message = {"role": "assistant", "content": "{}"}
        response = remote.litellm_module().ModelResponse(
            model="o3-mini", choices=[{"index": 0, "message": message}], usage=usage
        )
        return remote.call_cost(response)

    assert cost(20 + 1000, 1000) > cost(20, 0) > 0


def test_a_parameter_refused_at_run_time_is_dropped_once_and_warned_once(
    fake: FakeLLMServer, tmp_path: Path
) -> None:
    """The provider refuses ``temperature`` with a 400: each seat learns it on its
    first call (one refused attempt, recorded), then never sends it again."""
    with WireProxy(fake, Behaviour(reject_params=("temperature",))) as proxy:
        seat = {"model": "fake/legal-random", "api_base": proxy.base_url, "temperature": 0.4}
        raw = game_file("killer", seat, 9)
        raw["rules"]["day_limit"] = 1
        record = play_game(parse_config(raw), 9, tmp_path)
    assert record.outcome is not None and record.stats.fallback_count() == 0
    calls = [c for c in lines_of(Path(str(record.path))) if c["type"] == "call"]
    refused = [c for c in calls if c.get("error") and "temperature" in c["error"]]
    assert proxy.refused == len(refused) == 11  # one per seat
    for seat in range(1, 12):
        mine = [c for c in calls if c["seat"] == seat]
        notes = [w for c in mine for w in c.get("warnings", [])]
        assert notes == ["temperature was refused by the provider: dropped"]
