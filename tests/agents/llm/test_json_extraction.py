"""The prompt rung reads JSON out of free text: hand-built answers of the shapes
models give when nothing but the prompt asks for JSON."""

from __future__ import annotations

import pytest

from sandbox.agents.llm.answer_format import decision_model
from sandbox.agents.llm.parse import AnswerError, json_objects, parse_answer
from sandbox.core.requests import Choice, DecisionRequest

REQUEST = DecisionRequest(
    "3:1", 1, "vote", "X-1", "Vote.", (Choice("target", (2, 3), "whom", nullable=True),)
)
MODEL = decision_model(REQUEST)


@pytest.mark.parametrize(
    ("text", "target"),
    [
        # fenced, with prose around it
        ('Sure.\n```json\n{"reasoning": "r", "target": 2}\n```\nGood luck!', 2),
        # embedded in prose, with a trailing remark holding braces
        ('I vote {"reasoning": "r", "target": 3} and that is final {really}.', 3),
        # a reasoning model's visible thinking first, braces inside it
        ('<think>maybe {"target": 9}? no.</think>\n{"reasoning": "r", "target": 2}', 2),
        # the server dropped the opening tag: only what follows </think> counts
        ('weighing {"target": 9}</think>{"reasoning": "r", "target": 3}', 3),
        # a draft, then the final answer: the last object that fits wins
        ('Draft: {"reasoning": "x", "target": 7}\nFinal: {"reasoning": "y", "target": 3}', 3),
        # the final object does not fit, an earlier one does
        ('{"reasoning": "y", "target": 3}\nAlternatively {"target": 99}', 3),
        # a trailing comma is forgiven
        ('{"reasoning": "r", "target": 2,}', 2),
        # nested objects are one candidate, not several
        ('{"reasoning": "r", "target": null}', None),
    ],
)
def test_the_answer_is_found_in_free_text(text: str, target: int | None) -> None:
    assert parse_answer(text, MODEL).decision == {"target": target}


def test_an_unfitting_answer_names_the_first_candidates_error() -> None:
    with pytest.raises(AnswerError, match="target"):
        parse_answer('text {"reasoning": "r", "target": 8} more', MODEL)


def test_no_object_at_all_is_still_not_json() -> None:
    with pytest.raises(AnswerError, match="not valid JSON"):
        parse_answer("I pick seat three.", MODEL)


def test_candidates_are_fenced_first_then_prose_from_the_last() -> None:
    text = '{"a": 1} then ```json\n{"b": 2}\n``` and {"c": 3}'
    assert json_objects(text)[0] == {"b": 2}
    assert json_objects(text)[1] == {"c": 3}
