"""Pieces of the LLM seat that need no server: schemas, parsing, redaction,
lazy import, and the real-provider smoke test (skipped without a key)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sandbox.agents.llm.answer_format import decision_model, model_response_format, strict_schema
from sandbox.agents.llm.beliefs import BeliefProbe
from sandbox.agents.llm.parse import AnswerError, parse_answer
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.core.seat import FALLBACK_INVALID
from sandbox.models.secrets import MASK, redact, redact_text, secret_values
from sandbox.session.agent_specs import LLMSpec
from tests.agents.llm.conftest import decide_once

ROOT = Path(__file__).resolve().parents[3]
REQUEST = DecisionRequest(
    "3:1",
    1,
    "vote",
    "X-1",
    "Vote.",
    (
        Choice("target", (2, 3), "whom to vote out", nullable=True),
        MultiChoice("suspects", ("a", "b", "c"), "up to two suspects", 2),
        Text("speech", "what you say", 20),
    ),
)


def test_schema_holds_exactly_the_legal_values() -> None:
    schema = decision_model(REQUEST).model_json_schema()
    props = schema["properties"]
    assert next(iter(props)) == "reasoning"  # reason first, then decide
    assert schema["additionalProperties"] is False
    target = props["target"]["anyOf"]
    assert {"enum": [2, 3], "type": "integer"} in target and {"type": "null"} in target
    assert props["suspects"]["items"]["enum"] == ["a", "b", "c"]
    assert props["suspects"]["maxItems"] == 2 and props["speech"]["maxLength"] == 20
    assert props["target"]["description"] == "whom to vote out"


def test_strict_form_replaces_oneof_and_inlines_refs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "x": {"oneOf": [{"$ref": "#/$defs/A"}], "discriminator": {"propertyName": "k"}},
            "y": {"type": "string", "maxLength": 5},
        },
        "$defs": {"A": {"type": "object", "properties": {"k": {"const": "a"}}}},
    }
    out = strict_schema(schema)
    assert "oneOf" not in str(out) and "discriminator" not in str(out) and "$ref" not in str(out)
    assert out["properties"]["x"]["anyOf"][0]["additionalProperties"] is False
    assert out["properties"]["x"]["anyOf"][0]["required"] == ["k"]
    assert out["required"] == ["x", "y"] and "maxLength" not in out["properties"]["y"]
    probe = BeliefProbe((2, 3), ("killer", "unknown"))
    wrapped = model_response_format(decision_model(REQUEST, probe), "json_schema")
    assert wrapped is not None and wrapped["json_schema"]["strict"] is True
    assert "$defs" not in wrapped["json_schema"]["schema"]


def test_parse_strips_fences_and_accepts_raw_newlines() -> None:
    model = decision_model(REQUEST)
    text = '```json\n{"reasoning": "a\nb", "target": null, "suspects": ["a"], "speech": "hi"}\n```'
    parsed = parse_answer(text, model)
    assert parsed.decision == {"target": None, "suspects": ["a"], "speech": "hi"}
    assert parsed.reasoning == "a\nb"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("no json here", "not valid JSON"),
        ("[1, 2]", "one JSON object"),
        ('{"reasoning": "", "target": 4, "suspects": [], "speech": ""}', "target"),
        ('{"reasoning": "", "target": 2, "suspects": [], "speech": "", "x": 1}', "x: unknown"),
        ('{"reasoning": "", "target": 2, "suspects": ["a","b","c"], "speech": ""}', "suspects"),
    ],
)
def test_parse_errors_are_compact_and_name_the_field(text: str, needle: str) -> None:
    with pytest.raises(AnswerError) as err:
        parse_answer(text, decision_model(REQUEST))
    assert needle in str(err.value) and "errors.pydantic.dev" not in str(err.value)


def test_redaction_covers_env_secrets_and_key_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "zz-custom-secret-value-123")
    secrets = secret_values(["explicit-secret-456"])
    record: dict[str, Any] = {
        "error": "bad key zz-custom-secret-value-123 and Bearer abcdefghijkl",
        "nested": ["explicit-secret-456", {"k": "sk-proj-ABCDEFGH12345678"}],
        "n": 3,
    }
    out = redact(record, secrets)
    text = str(out)
    for secret in ("zz-custom-secret", "explicit-secret", "abcdefghijkl", "ABCDEFGH1234"):
        assert secret not in text
    assert text.count(MASK) == 4 and out["n"] == 3


@pytest.mark.parametrize(
    "echo",
    [
        "invalid key: sk-TOPSE****123",  # key shape, too short for KEY_SHAPES
        "Incorrect API key provided: zz-cu************-123.",  # head of a known secret
        "key ...value-123 rejected",  # tail of a known secret only
        "key zz-custom-s\u2022\u2022\u2022\u2022 rejected",  # bullets
        "key zz-custom\u2026lue-123 rejected",  # an ellipsis character
    ],
)
def test_masked_echoes_of_a_key_are_masked_whole(echo: str) -> None:
    secret = "zz-custom-secret-value-123"
    out = redact_text(echo, [secret])
    assert MASK in out
    visible = out.replace(MASK, " ")
    assert "TOPSE" not in visible and "zz-cu" not in visible and "-123" not in visible


def test_masked_tokens_unrelated_to_any_secret_are_left_alone() -> None:
    text = "Seat 3 waited... then said: not*** sure, score 12***45"
    assert redact_text(text, ["zz-custom-secret-value-123"]) == text


def test_key_shape_check_skipped_only_when_it_cannot_match() -> None:
    # The casefold hint check must not hide a key written in odd case.
    out = redact_text("token SK_ABCDEFGH12345678 and BEARER xyzxyzxyz", [])
    assert "ABCDEFGH" not in out and "xyzxyz" not in out and out.count(MASK) == 2


def test_building_an_llm_seat_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "from sandbox.session.gamefile import load_config\n"
        "from sandbox.session.seating import build_agents\n"
        "from pathlib import Path\n"
        "loaded = load_config(Path('configs/killer_fake.toml'))\n"
        "agents = build_agents(loaded, {s: 'civilian' for s in range(1, 12)}, 1)\n"
        "assert len(agents) == 11\n"
        "assert 'litellm' not in sys.modules, 'litellm imported eagerly'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set")
async def test_real_provider_answers_a_decision() -> None:
    spec = LLMSpec(kind="llm", model="openai/gpt-4o-mini", timeout_s=60, max_tokens=300)
    answer = await decide_once(spec)
    assert answer.fallback_reason in (None, FALLBACK_INVALID)
    assert answer.calls and answer.calls[0]["tokens_in"] > 0
    assert os.environ["OPENAI_API_KEY"] not in str(answer.calls)


async def test_fake_game_replays_exactly_from_its_seed() -> None:
    """Fake answers depend on the prompt, not on which concurrent request came first."""
    from sandbox.models.fake import FakeLLMServer
    from tests.agents.llm.conftest import llm_spec, play_toy, toy_loaded

    runs = []
    for _ in range(2):
        with FakeLLMServer(seed=3) as server:
            game, _ = await play_toy(toy_loaded(llm_spec(server, "legal-random"), seats=4), 5)
            runs.append([e.to_json() for e in game.events])
    assert runs[0] == runs[1] and len(runs[0]) > 8
