"""The wires' finer behaviour through litellm: Anthropic's explicit cache and
its refusals, reasoning that is counted but not shown (Responses without a
summary, Claude's omitted thinking), JSON mode without a schema on Gemini."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.models.fake import FakeLLMServer
from sandbox.models.remote import with_cache_control
from tests.models.fake.test_wires import (
    CASES,
    MESSAGES,
    QUESTION,
    RESPONSE_FORMAT,
    SYSTEM,
    assert_parsed_as_sent,
    call,
    last,
)

SONNET = next(c for c in CASES if c.mode == "output_format")  # no tool in the prompt
GEMINI = next(c for c in CASES if c.wire == "gemini")
RESPONSES = next(c for c in CASES if c.wire == "responses")
RECORD = "Day 1: seat 2 spoke. " * 50  # 1,050 characters
GROWN = RECORD + "Night fell. " * 10
SONNET_THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}


def cached_messages(system: str, record: str) -> list[dict[str, Any]]:
    """The sandbox's own breakpoints: after the system text and after the record."""
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": record + QUESTION},
    ]
    return with_cache_control(messages, len(record))


async def test_anthropic_cache_reads_back_only_at_block_boundaries(
    fake: FakeLLMServer, litellm: Any
) -> None:
    """Hand counts: the first call writes system+record; the same prompt
    reads it all; a grown record reads the system block and writes the
    record again (its old end is no block boundary any more)."""
    plan = [
        (RECORD, 0, len(SYSTEM + RECORD) // 4),
        (RECORD, len(SYSTEM + RECORD) // 4, 0),
        (GROWN, len(SYSTEM) // 4, len(SYSTEM + GROWN) // 4 - len(SYSTEM) // 4),
    ]
    for record, read, written in plan:
        messages = cached_messages(SYSTEM, record)
        response = await call(litellm, fake, SONNET, messages, response_format=RESPONSE_FORMAT)
        sent = last(fake, SONNET)
        assert sent.usage is not None
        assert (sent.usage.cached_tokens, sent.usage.cache_creation_tokens) == (read, written)
        assert sent.usage.prompt_tokens == len(SYSTEM + record + QUESTION) // 4
        assert_parsed_as_sent(response, sent)
        assert response.usage.cache_read_input_tokens == read


async def test_anthropic_caches_nothing_shorter_than_the_minimum(
    fake: FakeLLMServer, litellm: Any
) -> None:
    short = "Short rules. " * 30  # with the record, far below 1,024 tokens
    for _ in range(2):
        await call(litellm, fake, SONNET, cached_messages(short, RECORD))
        sent = last(fake, SONNET)
        assert sent.usage is not None
        assert (sent.usage.cached_tokens, sent.usage.cache_creation_tokens) == (0, 0)


async def test_anthropic_caches_nothing_without_breakpoints(
    fake: FakeLLMServer, litellm: Any
) -> None:
    for _ in range(2):
        await call(litellm, fake, SONNET)
        sent = last(fake, SONNET)
        assert sent.usage is not None and sent.usage.cached_tokens == 0


async def test_anthropic_refuses_temperature_with_thinking(
    fake: FakeLLMServer, litellm: Any
) -> None:
    """litellm passes the temperature on; Claude (and so the fake) refuses it."""
    with pytest.raises(litellm.BadRequestError, match="temperature"):
        await call(litellm, fake, SONNET, temperature=0.3, **SONNET_THINKING)
    assert last(fake, SONNET).status == 400


async def test_anthropic_omitted_thinking_is_counted_not_shown(
    fake: FakeLLMServer, litellm: Any
) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024, "display": "omitted"}
    response = await call(litellm, fake, SONNET, thinking=thinking)
    sent = last(fake, SONNET)
    assert sent.thinking == "" and sent.usage is not None and sent.usage.reasoning_tokens > 0
    details = response.usage.completion_tokens_details
    assert details.reasoning_tokens == sent.usage.reasoning_tokens
    assert not getattr(response.choices[0].message, "reasoning_content", None)


async def test_responses_reasoning_without_summary_is_counted_not_shown(
    fake: FakeLLMServer, litellm: Any
) -> None:
    response = await call(
        litellm, fake, RESPONSES, response_format=RESPONSE_FORMAT, reasoning_effort="low"
    )
    sent = last(fake, RESPONSES)
    assert sent.thinking == "" and sent.usage is not None and sent.usage.reasoning_tokens > 0
    assert response.usage.completion_tokens_details.reasoning_tokens == sent.usage.reasoning_tokens
    assert getattr(response.choices[0].message, "reasoning_content", None) is None
    assert fake.requests[-1]["reasoning"] == {"effort": "low"}  # what litellm sent


async def test_gemini_json_mode_without_a_schema(fake: FakeLLMServer, litellm: Any) -> None:
    question = 'Reply with JSON like {"properties": {"ok": {"type": "boolean"}}}'
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    response = await call(litellm, fake, GEMINI, messages, response_format={"type": "json_object"})
    sent = last(fake, GEMINI)
    assert sent.mode == "json"
    assert isinstance(json.loads(response.choices[0].message.content)["ok"], bool)


async def test_gemini_request_names_the_model_in_its_path(
    fake: FakeLLMServer, litellm: Any
) -> None:
    await call(litellm, fake, GEMINI, MESSAGES)
    assert fake.requests[-1]["_path"] == "/models/gemini-2.5-flash:generateContent"
    assert last(fake, GEMINI).model == "gemini-2.5-flash"
