"""The probability probe's schema: what the model is asked for, what is
accepted (numbers in [0, 1] summing to 1 within SUM_TOLERANCE, then
normalised), what is dropped, and that the fake provider's answers fit it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from sandbox.agents.llm.answer_format import answer_models, beliefs_model, model_response_format
from sandbox.agents.llm.beliefs import SUM_TOLERANCE, BeliefProbe, normalised, probe_request
from sandbox.agents.llm.parse import check_beliefs, parse_answer
from sandbox.models.fake.answers import legal_answer

KILLER = BeliefProbe((2, 5), ("killer", "police", "civilian"))
FACTIONS = BeliefProbe((3,), ("wolves", "spies", "justice", "army"))


def even(labels: tuple[str, ...], each: float) -> dict[str, float]:
    return dict.fromkeys(labels, each)


def test_the_schema_asks_one_number_in_0_1_per_label_for_each_seat() -> None:
    wire = answer_models(probe_request(7, 40), KILLER).wire
    strict = model_response_format(wire, "json_schema")
    assert strict is not None
    schema = strict["json_schema"]["schema"]
    beliefs = schema["properties"]["beliefs"]
    assert beliefs["required"] == ["2", "5"] and beliefs["additionalProperties"] is False
    seat = beliefs["properties"]["2"]
    assert seat["required"] == ["killer", "police", "civilian"]
    assert seat["additionalProperties"] is False
    for label in KILLER.labels:
        assert seat["properties"][label]["type"] == "number"
        bounds = seat["properties"][label]
        assert (bounds["minimum"], bounds["maximum"]) == (0, 1)
    # a probe-only request has no decision field: only the note and the beliefs
    assert set(schema["properties"]) == {"reasoning", "beliefs"}


@pytest.mark.parametrize("total", [1 - SUM_TOLERANCE, 0.99, 1.0, 1 + SUM_TOLERANCE])
def test_a_sum_within_the_tolerance_is_normalised(total: float) -> None:
    raw = {"2": even(KILLER.labels, total / 3), "5": {"killer": 1, "police": 0, "civilian": 0}}
    found, error = check_beliefs(raw, beliefs_model(KILLER))
    assert error is None and found is not None
    assert found["2"] == pytest.approx(even(KILLER.labels, 1 / 3), abs=1e-6)
    assert found["5"] == {"killer": 1.0, "police": 0.0, "civilian": 0.0}


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ({"killer": 0.9, "police": 0.9, "civilian": 0.9}, "sum to 2.7"),
        ({"killer": 0.3, "police": 0.3, "civilian": 0.3}, "sum to 0.9"),
        ({"killer": 0.0, "police": 0.0, "civilian": 0.0}, "sum to 0"),
        ({"killer": 1.2, "police": -0.2, "civilian": 0.0}, "less than or equal to 1"),
        ({"killer": 1.0, "police": 0.0}, "civilian"),
        ({"killer": 0.5, "police": 0.25, "civilian": 0.25, "unknown": 0.0}, "unknown field"),
        ("killer", "valid dictionary"),
    ],
)
def test_an_off_schema_distribution_drops_the_whole_probe(bad: Any, says: str) -> None:
    raw = {"2": bad, "5": even(KILLER.labels, 1 / 3)}
    found, error = check_beliefs(raw, beliefs_model(KILLER))
    assert found is None and error is not None and says in error


def test_bad_beliefs_never_cost_the_decision_of_a_probe_only_call() -> None:
    models = answer_models(probe_request(7, 40), KILLER)
    answer = json.dumps({"reasoning": "r", "beliefs": {"2": "killer"}})
    parsed = parse_answer(answer, models.decision, models.beliefs)
    assert parsed.decision == {} and parsed.beliefs is None and parsed.beliefs_error


def test_normalised_divides_by_the_sum() -> None:
    assert normalised({"a": 0.5, "b": 0.48}) == pytest.approx({"a": 0.5 / 0.98, "b": 0.48 / 0.98})
    assert normalised({"a": 0.5, "b": 0.3}) is None


@pytest.mark.parametrize("probe", [KILLER, FACTIONS], ids=["killer", "four_factions"])
@pytest.mark.parametrize("mode", ["json_schema", "json_object"])
def test_the_fake_provider_answers_valid_distributions(probe: BeliefProbe, mode: Any) -> None:
    models = answer_models(probe_request(7, 40), probe)
    fmt = model_response_format(models.wire, mode)
    assert fmt is not None
    schema = fmt["json_schema"]["schema"] if mode == "json_schema" else fmt["schema"]
    answers = set()
    for seed in range(20):
        text = legal_answer(schema, random.Random(seed))
        parsed = parse_answer(text, models.decision, models.beliefs)
        assert parsed.beliefs_error is None and parsed.beliefs is not None
        for spread in parsed.beliefs.values():
            assert set(spread) == set(probe.labels)
            assert sum(spread.values()) == pytest.approx(1.0, abs=1e-5)
        answers.add(text)
    assert len(answers) == 20  # random, but the same seed gives the same answer
    assert legal_answer(schema, random.Random(3)) == legal_answer(schema, random.Random(3))
