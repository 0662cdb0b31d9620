"""Prompt styles and answer limits: what a compact seat sends (prompt, schema,
token budget), the grammar-safe schema for llama.cpp, and the local
concurrency cap."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sandbox.agents.llm.agent import CHOICE_MAX_TOKENS
from sandbox.agents.llm.answer_format import (
    GRAMMAR_MAX_LENGTH,
    decision_model,
    model_response_format,
)
from sandbox.agents.llm.beliefs import BeliefProbe
from sandbox.agents.llm.parse import REASONING_KEEP_CHARS, parse_answer
from sandbox.agents.llm.settings import LIMITS, LLMSettings
from sandbox.core.requests import Choice, DecisionRequest, Text
from sandbox.models.endpoints import Target
from sandbox.models.fake import FakeLLMServer
from sandbox.models.local import RECOMMENDED_CONCURRENCY
from sandbox.models.providers import provider_class
from sandbox.session.agent_specs import LLMSpec
from tests.agents.llm.conftest import decide_once, llm_spec

SPEAK = DecisionRequest(
    "1:1",
    1,
    "speak",
    "X-2",
    "Speak.",
    (Text("speech", "what you say", 1200), Choice("ok", (True, False), "agree")),
)


def _props(model: Any) -> dict[str, Any]:
    props: dict[str, Any] = model.model_json_schema()["properties"]
    return props


def test_reasoning_is_capped_per_style_and_compact_caps_free_text() -> None:
    full = _props(decision_model(SPEAK))
    compact = _props(decision_model(SPEAK, limits=LIMITS["compact"]))
    assert full["reasoning"]["maxLength"] == LIMITS["full"].reasoning_chars == 200
    assert full["speech"]["maxLength"] == 1200  # full: the referee's own limit
    assert compact["reasoning"]["maxLength"] == LIMITS["compact"].reasoning_chars
    assert compact["speech"]["maxLength"] == LIMITS["compact"].text_chars
    short = DecisionRequest("1:2", 1, "speak", "X-2", "Speak.", (Text("speech", "w", 20),))
    assert _props(decision_model(short, limits=LIMITS["compact"]))["speech"]["maxLength"] == 20


def test_llama_cpp_form_keeps_short_limits_and_drops_long_ones_everywhere() -> None:
    model = decision_model(SPEAK, BeliefProbe((2, 3), ()))
    wire = model_response_format(model, "json_object")
    assert wire is not None
    text = json.dumps(wire)
    limits = [int(v) for v in _values(wire, "maxLength")]
    assert limits and all(v <= GRAMMAR_MAX_LENGTH for v in limits), text
    assert 200 in limits and 120 in limits  # reasoning and the nested belief strings
    assert '"maxLength": 1200' not in text
    # the pydantic model itself still holds the referee's limit
    assert _props(model)["speech"]["maxLength"] == 1200


def _values(node: Any, key: str) -> list[Any]:
    if isinstance(node, dict):
        found = [node[key]] if key in node else []
        return found + [v for child in node.values() for v in _values(child, key)]
    if isinstance(node, list):
        return [v for child in node for v in _values(child, key)]
    return []


def test_overlong_reasoning_is_kept_cut_not_refused() -> None:
    note = "x" * (REASONING_KEEP_CHARS + 500)
    parsed = parse_answer(
        json.dumps({"reasoning": note, "speech": "hi", "ok": True}), decision_model(SPEAK)
    )
    assert parsed.decision == {"speech": "hi", "ok": True}
    assert parsed.reasoning == note[:REASONING_KEEP_CHARS]


def test_local_endpoints_never_exceed_the_servers_concurrency() -> None:
    # 64: above the server's slots (one per seat since issue 24), so the cap shows
    settings = LLMSettings(concurrency=64).override(LLMSpec(kind="llm", model="m"))
    local = provider_class("local")(Target("local/smollm2"))
    remote = provider_class("litellm")(Target("openai/gpt-x"))
    fake = provider_class("fake")(Target("fake/x", "http://127.0.0.1:1/v1"))
    configured = settings.concurrency
    assert local.concurrency(configured) == RECOMMENDED_CONCURRENCY < 64
    assert remote.concurrency(configured) == 64 == fake.concurrency(configured)


def test_seat_settings_take_style_and_history_from_the_agent_over_defaults() -> None:
    defaults = LLMSettings(prompt_style="compact", history_items=8)
    inherited = defaults.override(LLMSpec(kind="llm", model="m"))
    assert (inherited.prompt_style, inherited.history_items) == ("compact", 8)
    own = defaults.override(LLMSpec(kind="llm", model="m", prompt_style="full", history_items=3))
    assert (own.prompt_style, own.history_items) == ("full", 3)
    plain = LLMSettings().override(LLMSpec(kind="llm", model="m"))
    assert (plain.prompt_style, plain.history_items) == ("full", None)


def _chat_bodies(server: FakeLLMServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if r.get("_path", "").endswith("/chat/completions")]


@pytest.mark.parametrize("style", ["full", "compact"])
async def test_what_a_seat_sends_in_each_style(fake: FakeLLMServer, style: str) -> None:
    """Compact: no full rules text, the compact schema, a choice's small budget.
    Full: the rules text and the configured budget."""
    spec = llm_spec(fake, "legal-random", max_tokens=300)
    answer = await decide_once(spec, prompt_style=style)
    assert answer.payload is not None
    (body,) = _chat_bodies(fake)
    system = body["messages"][0]["content"]
    schema = body["response_format"]["schema"]
    if style == "compact":
        assert "T-1 pick; T-2 speak." not in system
        assert body["max_tokens"] == CHOICE_MAX_TOKENS
        assert schema["properties"]["reasoning"]["maxLength"] == LIMITS["compact"].reasoning_chars
    else:
        assert "T-1 pick; T-2 speak." in system
        assert body["max_tokens"] == 300
        assert schema["properties"]["reasoning"]["maxLength"] == LIMITS["full"].reasoning_chars
