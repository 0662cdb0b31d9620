"""Hand-built cases for the wire modules and the breakpoint cache, and the
raw HTTP of faults (status, Retry-After) on every wire's path."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request
from typing import Any

import pytest

from sandbox.models.fake import FakeLLMServer, anthropic, gemini
from sandbox.models.fake.cache import LOOKBACK_BLOCKS, BreakpointCache, CacheHit
from sandbox.models.fake.wire import BadRequest, retry_after_header, thought_text

MINIMAL = {
    "/v1/chat/completions": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    "/v1/responses": {"model": "m", "input": "hi"},
    "/v1/messages": {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
    },
    "/models/gemini-2.5-flash:generateContent": {"contents": [{"parts": [{"text": "hi"}]}]},
}


def post(url: str, body: Any) -> tuple[int, dict[str, str], dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


# ------------------------------------------------------------- breakpoint cache
def test_breakpoint_cache_reads_written_prefixes_at_block_ends() -> None:
    cache = BreakpointCache()
    a, b = "A" * 10, "B" * 10
    assert cache.lookup_and_write(a + b + "?", (10, 20, 21), (10, 20)) == CacheHit(0, 20)
    assert cache.lookup_and_write(a + b + "!", (10, 20, 21), (10, 20)) == CacheHit(20, 0)
    grown = a + b + "C" * 5  # the second block grew: its old end is mid-block now
    assert cache.lookup_and_write(grown + "?", (10, 25, 26), (10, 25)) == CacheHit(10, 15)


def test_breakpoint_cache_without_breakpoints_neither_reads_nor_writes() -> None:
    cache = BreakpointCache()
    cache.lookup_and_write("A" * 10 + "?", (10, 11), (10,))
    assert cache.lookup_and_write("A" * 10 + "?", (10, 11), ()) == CacheHit(0, 0)


def test_breakpoint_cache_honours_the_minimum_length() -> None:
    cache = BreakpointCache(min_chars=15)
    text = "A" * 10 + "B" * 10
    assert cache.lookup_and_write(text, (10, 20), (10, 20)) == CacheHit(0, 20)
    assert cache.lookup_and_write(text, (10, 20), (10,)) == CacheHit(0, 0)  # 10 < 15


def test_breakpoint_cache_looks_back_a_limited_number_of_blocks() -> None:
    blocks = [f"x{i:02d}" for i in range(LOOKBACK_BLOCKS + 2)]  # 3 characters each
    ends = tuple(3 * (i + 1) for i in range(len(blocks)))

    def text(last: str) -> str:
        return "".join(blocks[:-1]) + last

    cache = BreakpointCache()
    cache.lookup_and_write(text("x21"), ends, (ends[0], ends[1]))  # writes 3 and 6
    # A breakpoint only at the end: its 20 block ends reach back to the 3rd block.
    assert cache.lookup_and_write(text("y21"), ends, (ends[-1],)) == CacheHit(0, ends[-1])
    # One more breakpoint near the start brings the written prefix in reach.
    assert cache.lookup_and_write(text("z21"), ends, (ends[1], ends[-1])) == CacheHit(
        6, ends[-1] - 6
    )


# ------------------------------------------------------------------- Anthropic
def test_anthropic_prompt_blocks_and_breakpoints_in_cache_order() -> None:
    tool = {"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
    body = {
        "model": "claude",
        "max_tokens": 100,
        "tools": [tool],
        "system": [{"type": "text", "text": "SYS", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Q1"}, {"type": "text", "text": "Q2"}],
            }
        ],
    }
    turn = anthropic.parse(body, "/v1/messages")
    tool_len = len(json.dumps(tool, sort_keys=True))
    assert turn.prompt == json.dumps(tool, sort_keys=True) + "SYSQ1Q2"
    assert turn.boundaries == (tool_len, tool_len + 3, tool_len + 5, tool_len + 7)
    assert turn.breakpoints == (tool_len, tool_len + 3)
    assert turn.mode == "text"  # a tool that is neither forced nor litellm's JSON tool
    assert [m["content"] for m in turn.chat["messages"]] == ["SYS", "Q1Q2"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"max_tokens": None}, "max_tokens"),
        ({"thinking": {"type": "enabled", "budget_tokens": 512}}, "greater than or equal to 1024"),
        ({"thinking": {"type": "enabled", "budget_tokens": 4096}}, "must be greater than"),
        ({"tool_choice": {"type": "tool", "name": "json_tool_call"}}, "forces tool use"),
        ({"temperature": 0.2}, "temperature"),
    ],
)
def test_anthropic_refuses_what_claude_refuses(change: dict[str, Any], reason: str) -> None:
    body: dict[str, Any] = {
        "model": "claude",
        "max_tokens": 2048,
        "messages": [{"role": "user", "content": "hi"}],
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        **change,
    }
    with pytest.raises(BadRequest, match=reason):
        anthropic.parse(body, "/v1/messages")


def test_anthropic_forced_tool_carries_the_schema() -> None:
    schema = {"type": "object", "properties": {"pick": {"enum": [1, 2]}}}
    body = {
        "model": "claude",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "answer", "input_schema": schema}],
        "tool_choice": {"type": "tool", "name": "answer"},
    }
    turn = anthropic.parse(body, "/v1/messages")
    assert turn.mode == "tool" and turn.chat["response_format"]["json_schema"]["schema"] == schema


# ---------------------------------------------------------------------- Gemini
def test_gemini_reads_either_spelling_and_the_thinking_config() -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    camel = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "SYS"}]},
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseSchema": schema,
            "thinkingConfig": {"thinkingBudget": 0},
        },
    }
    turn = gemini.parse(camel, "/v1beta/models/gemini-2.5-pro:generateContent?key=k")
    assert turn.chat["model"] == "gemini-2.5-pro" and turn.prompt == "SYShi"
    assert turn.mode == "json_schema" and not turn.thinking
    snake = {
        "contents": camel["contents"],
        "generation_config": {"thinking_config": {"thinking_budget": 2048}},
    }
    turn = gemini.parse(snake, "/models/m:generateContent")
    assert turn.thinking and turn.budget == 2048 and not turn.show_thinking and turn.mode == "text"


def test_gemini_schema_needs_json_mime_type() -> None:
    body = {"contents": [{"parts": [{"text": "x"}]}], "generationConfig": {"responseSchema": {}}}
    with pytest.raises(BadRequest, match="application/json"):
        gemini.parse(body, "/models/m:generateContent")


def test_gemini_rate_limit_says_when_to_retry() -> None:
    err = gemini.error(429, "rate_limit", "slow", 7.0)["error"]
    assert err["status"] == "RESOURCE_EXHAUSTED"
    assert err["details"][0]["retryDelay"] == "7s"


# ---------------------------------------------------------------- over HTTP
@pytest.mark.parametrize("path", list(MINIMAL))
def test_429_carries_retry_after_in_whole_seconds_on_every_path(path: str) -> None:
    with FakeLLMServer(retry_after_s=0.2) as fake:
        fake.inject("429")
        status, headers, body = post(fake.root_url + path, MINIMAL[path])
        assert (status, headers["Retry-After"]) == (429, "1")
        assert "error" in body
        status, _, _ = post(fake.root_url + path, MINIMAL[path])
        assert status == 200  # the fault was used up
        assert [s.status for s in fake.sent] == [429, 200]


@pytest.mark.parametrize("path", list(MINIMAL))
def test_a_body_that_is_not_json_is_refused_in_the_wire_s_shape(path: str) -> None:
    with FakeLLMServer() as fake:
        status, _, body = post(fake.root_url + path, b"not json")
    assert status == 400 and "error" in body


def test_an_unknown_path_is_404() -> None:
    with FakeLLMServer() as fake:
        status, _, _ = post(fake.root_url + "/v1/embeddings", {"input": "x"})
    assert status == 404


def test_settings_and_faults_are_checked() -> None:
    with pytest.raises(ValueError, match="retry_after_s"):
        FakeLLMServer(retry_after_s=-1)
    with FakeLLMServer() as fake:
        fake.inject("overloaded", "429")
        with pytest.raises(ValueError, match="overloaded"):  # the message lists them
            fake.inject("529")


def test_retry_after_header_rounds_up() -> None:
    assert [retry_after_header(s) for s in (0, 0.2, 1, 7.5)] == ["0", "1", "1", "8"]


def test_thought_text_keeps_its_mark_and_budget() -> None:
    text = thought_text(random.Random(1), budget=5)
    assert text.startswith("[thought ") and len(text) <= 20
    assert thought_text(random.Random(1), None) == thought_text(random.Random(1), None)
