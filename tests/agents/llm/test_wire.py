"""The composed wire schema (answer_format's cached parts) is exactly
pydantic's schema of the combined answer model, for every request of seeded
games of both variants, with and without the belief probe, in every
structured-output mode."""

from __future__ import annotations

import json
import random

import pytest

from sandbox.agents.llm import answer_format
from sandbox.agents.llm.beliefs import probe_for
from sandbox.agents.llm.settings import LIMITS
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from tests.prompts.harness import new_game, play

MODES: tuple[answer_format.StructuredMode, ...] = ("json_schema", "json_object", "none")


@pytest.mark.parametrize(("variant", "seed"), [("four_factions", 5), ("killer", 7)])
def test_composed_formats_equal_the_combined_models(variant: str, seed: int) -> None:
    def every(game: Game, request: DecisionRequest) -> bool:
        return True

    captured = play(new_game(variant, seed), random.Random(seed), pick=every)
    checked = 0
    for c in captured[::3]:
        for probe in (None, probe_for(c.view)):
            for limits in LIMITS.values():
                combined = answer_format.answer_models(c.request, probe, limits).wire
                for mode in MODES:
                    expected = answer_format.model_response_format(combined, mode)
                    got = answer_format.response_format(c.request, probe, limits, mode)
                    # Same keys in the same order: the request body is byte for byte the same.
                    assert json.dumps(got) == json.dumps(expected)
                    checked += 1
                assert answer_format.schema_instructions(c.request, probe, limits, "zh") == (
                    answer_format.model_schema_instructions(combined, "zh")
                )
    assert checked > 100


def test_a_format_is_built_once_per_shape() -> None:
    captured = play(new_game("killer", 7), random.Random(7), pick=lambda g, r: True)
    c = captured[-1]
    probe = probe_for(c.view)
    first = answer_format.response_format(c.request, probe, LIMITS["full"], "json_object")
    again = answer_format.response_format(c.request, probe, LIMITS["full"], "json_object")
    assert first is again
