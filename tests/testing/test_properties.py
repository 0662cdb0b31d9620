"""Generic invariants over random games of every registered variant (hypothesis),
checked by the shipped conformance kit (``sandbox.testing.check_game``).

Configs come from the variant's golden files (tests/testing/golden/<variant>/), so a
new variant is covered as soon as it has a golden case. Per variant the run
plays the profile's max_examples random games (1000 in the default "ci"
profile, see conftest.py) (random seats, random seeds) and checks: games
terminate; every decision was answered by the seat it was asked of. Every
tenth game also gets the kit's deep checks: the same seed and decisions give
the same events; every view holds exactly the events visible to that seat and
equals a full build; a replay from serialized events reproduces the outcome,
the roles and every view. (The prompt audit runs in tests/prompts and
tests/testing/test_kit.py.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.games.registry import get_variant, variant_names
from sandbox.testing import ConformanceReport, check_game
from tests.testing.golden import golden_files

# Views are rebuilt from every event, so the costly checks run on a sample.
DEEP_CHECK_EVERY = 10
FOLD_EVERY = 25  # decisions between two fold-vs-build comparisons in a deep game


def _configs(variant: str) -> list[dict[str, Any]]:
    return [json.loads(p.read_text())["config"] for p in golden_files(variant)] or [{}]


@pytest.mark.parametrize("variant", variant_names())
def test_random_games_keep_generic_invariants(variant: str) -> None:
    v = get_variant(variant)
    configs = [v.parse_config(raw) for raw in _configs(variant)]
    report = ConformanceReport(variant)

    @given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, len(configs) - 1))
    def one_game(seed: int, which: int) -> None:
        deep = report.games % DEEP_CHECK_EVERY == 0
        check_game(
            v, configs[which], seed, deep=deep, prompts=False, fold_every=FOLD_EVERY, report=report
        )

    one_game()
    assert report.games >= settings().max_examples
    assert report.folds_compared >= report.games // DEEP_CHECK_EVERY  # deep games ran
