"""litellm's own client code for each provider, against the fake on loopback.

Every call goes ``litellm.acompletion`` → the provider's translation in
litellm → HTTP → the fake's wire module, and back. What litellm parsed
(content, reasoning text, usage) must equal what the fake recorded sending
(``FakeLLMServer.sent``); the fake's figures are checked against hand
counts (4 characters a token) so the two sides cannot agree by accident.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from sandbox.models.fake import FakeLLMServer
from sandbox.models.fake.answers import ILLEGAL_VALUE
from sandbox.models.fake.wire import Sent
from tests.models.fake.conftest import RETRY_AFTER_S

SCHEMA = {
    "type": "object",
    "properties": {
        "target": {"type": "integer", "enum": [2, 3, 5]},
        "reasoning": {"type": "string", "maxLength": 60},
    },
    "required": ["target", "reasoning"],
    "additionalProperties": False,
}
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
}
SYSTEM = "You are seat 1 in a game of Killer. The rules follow. " * 100  # 5,400 characters
QUESTION = "Whom do you vote for? Answer in JSON."
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 4096}


@dataclass(frozen=True)
class Case:
    wire: str
    model: str
    root: bool  # api_base is the bare origin (anthropic/, gemini/), else .../v1
    reasoning: dict[str, Any]  # what asks this provider for reasoning
    mode: str  # how the structured answer travels on this wire
    always: dict[str, Any] = field(default_factory=dict)  # what every call needs


CASES = [
    Case("openai_chat", "openai/o4-mini", False, {"reasoning_effort": "low"}, "json_schema"),
    Case("anthropic", "anthropic/claude-sonnet-4-5", True, THINKING, "output_format",
         {"max_tokens": 4096}),
    Case("anthropic", "anthropic/claude-sonnet-4-20250514", True, THINKING, "tool",
         {"max_tokens": 4096}),
    Case("gemini", "gemini/gemini-2.5-flash", True, {"reasoning_effort": "low"}, "json_schema"),
    Case("responses", "openai/responses/gpt-5", False,
         {"reasoning_effort": {"effort": "low", "summary": "auto"}}, "json_schema"),
]  # fmt: skip
IDS = [c.model.split("/", 1)[1] for c in CASES]


async def call(
    litellm: Any, fake: FakeLLMServer, case: Case, messages: Any = None, **kwargs: Any
) -> Any:
    return await litellm.acompletion(
        model=case.model,
        api_base=fake.root_url if case.root else fake.base_url,
        api_key="x",
        messages=messages
        or [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}],
        num_retries=0,
        max_retries=0,
        **{**case.always, **kwargs},
    )


def last(fake: FakeLLMServer, case: Case) -> Sent:
    sent = fake.sent_on(case.wire)
    assert sent, f"nothing was answered on {case.wire}"
    return sent[-1]


def assert_parsed_as_sent(response: Any, sent: Sent) -> None:
    """What litellm made of the answer equals what the fake sent."""
    assert sent.status == 200 and sent.usage is not None
    message = response.choices[0].message
    assert json.loads(message.content) == json.loads(sent.text)
    assert getattr(message, "reasoning_content", None) == (sent.thinking or None)
    usage = response.usage
    assert usage.prompt_tokens == sent.usage.prompt_tokens
    assert usage.completion_tokens == sent.usage.completion_tokens
    details = usage.completion_tokens_details
    assert ((details and details.reasoning_tokens) or 0) == sent.usage.reasoning_tokens
    assert (usage.prompt_tokens_details.cached_tokens or 0) == sent.usage.cached_tokens
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    assert written == sent.usage.cache_creation_tokens


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_structured_answer_with_reasoning_is_parsed_as_sent(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    response = await call(litellm, fake, case, response_format=RESPONSE_FORMAT, **case.reasoning)
    sent = last(fake, case)
    assert_parsed_as_sent(response, sent)
    assert sent.mode == case.mode
    answer = json.loads(response.choices[0].message.content)
    assert answer["target"] in (2, 3, 5) and set(answer) == {"target", "reasoning"}
    assert sent.thinking is not None and sent.thinking.startswith("[thought ")
    assert sent.usage is not None
    assert sent.usage.reasoning_tokens == len(sent.thinking) // 4 > 0
    assert sent.usage.completion_tokens == len(sent.text) // 4 + sent.usage.reasoning_tokens
    if case.mode != "tool":  # the tool's definition is part of an Anthropic prompt
        assert sent.usage.prompt_tokens == len(SYSTEM + QUESTION) // 4


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_no_reasoning_asked_none_sent(fake: FakeLLMServer, litellm: Any, case: Case) -> None:
    response = await call(litellm, fake, case, response_format=RESPONSE_FORMAT)
    sent = last(fake, case)
    assert_parsed_as_sent(response, sent)
    assert sent.thinking is None and sent.usage is not None and sent.usage.reasoning_tokens == 0


@pytest.mark.parametrize("case", [c for c in CASES if c.wire != "anthropic"], ids=str)
async def test_implicit_prefix_cache_reports_the_repeated_prompt(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    await call(litellm, fake, case, response_format=RESPONSE_FORMAT)
    first = last(fake, case)
    response = await call(litellm, fake, case, response_format=RESPONSE_FORMAT)
    second = last(fake, case)
    assert first.usage is not None and first.usage.cached_tokens == 0
    assert second.usage is not None and second.usage.cached_tokens == len(SYSTEM + QUESTION) // 4
    assert_parsed_as_sent(response, second)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_prompt_only_request_gets_the_json_in_plain_text(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    """No response_format: the schema is in the prompt, the JSON comes back as text."""
    question = f"Answer with JSON matching this schema:\n{json.dumps(SCHEMA)}"
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
    response = await call(litellm, fake, case, messages)
    sent = last(fake, case)
    assert sent.mode == "text"
    assert_parsed_as_sent(response, sent)
    assert json.loads(response.choices[0].message.content)["target"] in (2, 3, 5)


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_the_server_policy_answers_on_every_wire(litellm: Any, case: Case) -> None:
    with FakeLLMServer(policy="illegal") as fake:
        response = await call(litellm, fake, case, response_format=RESPONSE_FORMAT)
    answer = json.loads(response.choices[0].message.content)
    assert answer["target"] == ILLEGAL_VALUE  # outside the enum, as the policy says


# ------------------------------------------------------------------- faults
@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_429_is_a_rate_limit_error_with_the_retry_after(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    fake.inject("429")
    with pytest.raises(litellm.RateLimitError) as raised:
        await call(litellm, fake, case)
    headers = raised.value.litellm_response_headers
    assert headers is not None and headers.get("retry-after") == "7"
    sent = last(fake, case)
    assert (sent.status, sent.fault, sent.retry_after_s) == (429, "429", RETRY_AFTER_S)
    response = await call(litellm, fake, case)  # the fault was used up: the next call answers
    assert response.choices[0].message.content is not None


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_overloaded_maps_to_a_server_error(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    fake.inject("overloaded")
    if case.wire == "anthropic":  # 529 overloaded_error: litellm calls it an internal error
        with pytest.raises(litellm.InternalServerError, match="overloaded_error"):
            await call(litellm, fake, case)
        assert last(fake, case).status == 529
    else:
        with pytest.raises(litellm.ServiceUnavailableError):
            await call(litellm, fake, case)
        assert last(fake, case).status == 503


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_500_maps_to_internal_server_error(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    fake.inject("500")
    with pytest.raises(litellm.InternalServerError):
        await call(litellm, fake, case)
    assert last(fake, case).status == 500


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_a_too_long_prompt_is_a_context_window_error(litellm: Any, case: Case) -> None:
    with FakeLLMServer(context_window=600) as fake:
        with pytest.raises(litellm.ContextWindowExceededError):
            await call(litellm, fake, case)  # 1,359 tokens
        assert last(fake, case).status == 400


@pytest.mark.parametrize("case", CASES, ids=IDS)
async def test_auth_error_echoes_the_key_this_wire_sent(
    fake: FakeLLMServer, litellm: Any, case: Case
) -> None:
    fake.inject("auth_echo")
    with pytest.raises(litellm.AuthenticationError, match=r"invalid key: (Bearer )?x"):
        await call(litellm, fake, case)
