"""The capability table: refused parameters dropped or renamed with a warning,
reasoning settings mapped per family, the ladder's best rung, and 400s that
name a refused parameter (hand-built errors shaped like the providers')."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.models.capabilities import (
    Learned,
    Reasoning,
    adapt,
    best_rung,
    default_timeout,
    family_of,
    reasoning_params,
    refused_param,
)


class FakeError(Exception):
    def __init__(self, message: str, status: int = 400, body: Any = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.body = body


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai/o3-mini", "openai o-series"),
        ("o4-mini", "openai o-series"),
        ("openai/o1-mini", "openai o1-mini/o1-preview"),
        ("openai/gpt-5-mini", "openai gpt-5 (reasoning)"),
        ("openai/gpt-5-chat-latest", "any other model"),
        ("openai/gpt-4o", "any other model"),
        ("deepseek/deepseek-reasoner", "deepseek reasoner / r1"),
        ("anthropic/claude-sonnet-4-5-20250929", "anthropic claude with extended thinking"),
        ("anthropic/claude-3-7-sonnet-latest", "anthropic claude with extended thinking"),
        ("anthropic/claude-3-5-haiku-20241022", "anthropic claude"),
        ("gemini/gemini-2.5-flash", "gemini 2.5 and later (thinking)"),
        ("gemini/gemini-2.0-flash", "gemini"),
        ("openrouter/qwen/qwen3-32b", "qwen3 / qwq"),
    ],
)
def test_models_fall_in_their_family(model: str, family: str) -> None:
    assert family_of(model).name == family


def test_o_series_drops_temperature_and_renames_max_tokens_with_warnings() -> None:
    out, warnings = adapt("openai/o3-mini", {"temperature": 0.7, "max_tokens": 300})
    assert out == {"max_completion_tokens": 300}
    assert len(warnings) == 2 and "temperature" in warnings[0]
    assert "max_completion_tokens" in warnings[1]


def test_a_plain_model_keeps_everything_without_warnings() -> None:
    params = {"temperature": 0.7, "max_tokens": 300, "response_format": {"type": "json_object"}}
    assert adapt("openai/gpt-4o", params) == (params, [])


def test_claude_thinking_drops_temperature_and_widens_max_tokens() -> None:
    params = {
        "temperature": 0.5,
        "max_tokens": 500,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }
    out, warnings = adapt("anthropic/claude-sonnet-4-5", params)
    assert "temperature" not in out and out["max_tokens"] == 2548
    assert any("while thinking" in w for w in warnings)
    # Without thinking, the same model keeps its temperature.
    assert adapt("anthropic/claude-sonnet-4-5", {"temperature": 0.5})[0] == {"temperature": 0.5}


def test_learned_refusals_drop_and_rename_and_warn_once() -> None:
    learned = Learned()
    assert learned.refuse("temperature") and not learned.refuse("temperature")
    assert learned.refuse("max_tokens", "max_completion_tokens")
    out, warnings = adapt("openai/gpt-4o", {"temperature": 1.0, "max_tokens": 40}, learned)
    assert out == {"max_completion_tokens": 40}
    assert learned.fresh(warnings) == warnings and learned.fresh(warnings) == []


@pytest.mark.parametrize(
    ("model", "reasoning", "params", "warned"),
    [
        ("openai/o3", Reasoning("high"), {"reasoning_effort": "high"}, False),
        ("openai/o3", Reasoning(None, 2048), {}, True),
        (
            "anthropic/claude-opus-4-1",
            Reasoning(None, 2048),
            {"thinking": {"type": "enabled", "budget_tokens": 2048}},
            False,
        ),
        (
            "anthropic/claude-opus-4-1",
            Reasoning("medium"),
            {"thinking": {"type": "enabled", "budget_tokens": 4096}},
            False,
        ),
        ("gemini/gemini-2.5-pro", Reasoning("none"), {"thinking": {"type": "disabled"}}, False),
        ("gemini/gemini-2.0-flash", Reasoning("low"), {}, True),
        ("deepseek/deepseek-reasoner", Reasoning("low"), {}, True),
        (
            "openai/some-new-model",
            Reasoning("low", 100),
            {"reasoning_effort": "low", "thinking": {"type": "enabled", "budget_tokens": 100}},
            False,
        ),
        ("openai/gpt-4o", Reasoning(), {}, False),
    ],
)
def test_reasoning_settings_map_per_family(
    model: str, reasoning: Reasoning, params: dict[str, Any], warned: bool
) -> None:
    got, warnings = reasoning_params(model, reasoning)
    assert got == params and bool(warnings) == warned


def test_best_rung_from_the_table_then_litellm() -> None:
    assert best_rung("deepseek/deepseek-reasoner", True, True) == "prompt"
    assert best_rung("openai/o3", False, False) == "schema"
    assert best_rung("anthropic/claude-sonnet-4-5", True, True, thinking=True) == "prompt"
    assert best_rung("anthropic/claude-sonnet-4-5", True, True) == "schema"
    assert best_rung("openai/unknown", False, True) == "json"
    assert best_rung("openai/unknown", False, False) == "prompt"


def test_thinking_models_get_a_long_default_timeout() -> None:
    assert (default_timeout("openai/o3") or 0) >= 300
    assert default_timeout("openai/gpt-4o") is None


@pytest.mark.parametrize(
    ("err", "sent", "expected"),
    [
        # OpenAI's own words and body
        (
            FakeError(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                body={"param": "max_tokens", "code": "unsupported_parameter"},
            ),
            {"max_tokens": 5, "temperature": 1.0},
            ("max_tokens", "max_completion_tokens"),
        ),
        (
            FakeError("Unsupported value: 'temperature' does not support 0.5 with this model."),
            {"temperature": 0.5, "max_tokens": 5},
            ("temperature", None),
        ),
        # litellm's own refusal before sending
        (
            FakeError(
                "litellm.UnsupportedParamsError: gemini does not support parameters: "
                "['reasoning_effort']"
            ),
            {"reasoning_effort": "low"},
            ("reasoning_effort", None),
        ),
        # Anthropic, while thinking: temperature is named first
        (
            FakeError("temperature may only be set to 1 when thinking is enabled"),
            {"temperature": 0.5, "thinking": {"type": "enabled"}},
            ("temperature", None),
        ),
        (
            FakeError("response_format of type json_schema is not supported with this model"),
            {"response_format": {}, "temperature": 0.1},
            ("response_format", None),
        ),
        # not a refusal: a 400 about something else, a 500, a parameter not sent
        (FakeError("messages: at least one message is required"), {"temperature": 1}, None),
        (FakeError("temperature not supported", status=500), {"temperature": 1}, None),
        (FakeError("Unsupported parameter: 'top_p'"), {"temperature": 1}, None),
    ],
)
def test_refusals_are_read_from_the_error(
    err: FakeError, sent: dict[str, Any], expected: tuple[str, str | None] | None
) -> None:
    assert refused_param(err, sent) == expected
