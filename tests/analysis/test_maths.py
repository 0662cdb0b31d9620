"""Intervals, ratings and calibration against values worked out by hand or by the
reference library (openskill)."""

from __future__ import annotations

import math
import random

import pytest
from openskill.models import PlackettLuce

from sandbox.analysis.intervals import (
    BOOTSTRAP_SEED,
    bootstrap_ci95,
    cluster_bootstrap,
    clustered_rate_interval,
    wilson,
)
from sandbox.analysis.ratings import Match, bradley_terry, openskill_ratings, pairwise
from sandbox.analysis.summary import expected_calibration_error
from sandbox.analysis.tables import read_belief


def test_wilson_by_hand() -> None:
    z2 = 1.959963984540054**2
    low, high = wilson(0, 10) or (None, None)
    assert low == 0.0 and high == pytest.approx(z2 / (10 + z2))  # 0.2775, never [0, 0]
    low, high = wilson(5, 10) or (None, None)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson(10, 10) or (None, None)
    assert high == pytest.approx(1.0) and low == pytest.approx(10 / (10 + z2))
    assert wilson(0, 0) is None


def test_cluster_bootstrap_resamples_whole_games() -> None:
    # two games, 3/3 and 0/3: a resample is both, or one of them twice
    low, high = cluster_bootstrap([(3, 3), (0, 3)], random.Random(1)) or (None, None)
    assert (low, high) == (0.0, 1.0)
    assert cluster_bootstrap([], random.Random(1)) is None


def test_a_rate_with_no_spread_falls_back_to_wilson_over_games() -> None:
    interval = clustered_rate_interval([(0, 4), (0, 2), (0, 5)], random.Random(1))
    assert interval == wilson(0, 3)


def test_the_rounded_interval_is_the_clustered_one() -> None:
    per_game = [(1, 4), (3, 4), (0, 2), (2, 2)]
    low, high = clustered_rate_interval(per_game, random.Random(BOOTSTRAP_SEED)) or (0.0, 0.0)
    assert bootstrap_ci95(per_game, random.Random(BOOTSTRAP_SEED)) == [
        round(low, 4),
        round(high, 4),
    ]
    assert bootstrap_ci95([], random.Random(BOOTSTRAP_SEED)) == [0.0, 0.0]
    no_spread = wilson(0, 3) or (0.0, 0.0)
    assert bootstrap_ci95([(0, 5)] * 3, random.Random(1)) == [0.0, round(no_spread[1], 4)]


def test_bradley_terry_by_hand() -> None:
    # A beat B three times in four: strengths 3:1, so 400·log10(3) Elo apart around 1500
    wins = {("A", "B"): 3.0, ("B", "A"): 1.0}
    elo = bradley_terry(wins, prior=0.0)
    gap = 400 * math.log10(3)
    assert elo["A"] == pytest.approx(1500 + gap / 2, abs=1e-4)
    assert elo["B"] == pytest.approx(1500 - gap / 2, abs=1e-4)
    # the prior pulls towards even: (3 + 1) : (1 + 1)
    shrunk = bradley_terry(wins, prior=1.0)
    assert shrunk["A"] - shrunk["B"] == pytest.approx(400 * math.log10(2), abs=1e-4)


def test_bradley_terry_three_players_matches_the_likelihood_equations() -> None:
    wins = {
        ("A", "B"): 2.0,
        ("B", "A"): 1.0,
        ("B", "C"): 2.0,
        ("C", "B"): 1.0,
        ("A", "C"): 1.0,
        ("C", "A"): 1.0,
    }
    elo = bradley_terry(wins, prior=0.0)
    p = {k: 10 ** ((v - 1500) / 400) for k, v in elo.items()}
    # at the maximum, each player's wins equal its expected wins
    for i in p:
        expected = sum(
            (wins.get((i, j), 0) + wins.get((j, i), 0)) * p[i] / (p[i] + p[j]) for j in p if j != i
        )
        assert expected == pytest.approx(sum(v for (a, _), v in wins.items() if a == i), abs=1e-6)


def test_pairwise_counts_draws_as_halves_and_skips_self() -> None:
    matches = [Match((("A",), ("B",)), (1, 2)), Match((("A",), ("A", "B")), (1, 1))]
    assert pairwise(matches) == {("A", "B"): 1.5, ("B", "A"): 0.5}


def test_openskill_equals_the_reference_library() -> None:
    matches = [
        Match((("A",), ("B",)), (1, 2)),
        Match((("B",), ("C",)), (2, 1)),
        Match((("A",), ("C",)), (1, 1)),
    ]
    ours = openskill_ratings(matches)
    model = PlackettLuce()
    r = {n: model.rating(name=n) for n in "ABC"}
    [[r["A"]], [r["B"]]] = model.rate([[r["A"]], [r["B"]]], ranks=[1, 2])
    [[r["B"]], [r["C"]]] = model.rate([[r["B"]], [r["C"]]], ranks=[2, 1])
    [[r["A"]], [r["C"]]] = model.rate([[r["A"]], [r["C"]]], ranks=[1, 1])
    for name in "ABC":
        assert ours[name] == (pytest.approx(r[name].mu), pytest.approx(r[name].sigma))


def test_brier_and_top_label_by_hand() -> None:
    dist = {"killer": 0.7, "police": 0.2, "civilian": 0.1}
    label, p_label, p_true, brier = read_belief(dist, "killer")
    assert label == "killer" and p_label == p_true == pytest.approx(0.7)
    assert brier == pytest.approx(0.3**2 + 0.2**2 + 0.1**2)
    # a plain wrong label is a certain forecast: Brier 2
    assert read_belief("police", "killer")[1:] == (1.0, 0.0, 2.0)
    assert read_belief("unknown", "killer") == ("unknown", None, None, None)


def test_expected_calibration_error_by_hand() -> None:
    # bin 0.9: accuracy 1/2 vs 0.9 -> 0.4; bin 0.6: accuracy 1 vs 0.6 -> 0.4; halves each
    ece = expected_calibration_error([0.9, 0.9, 0.6, 0.6], [True, False, True, True])
    assert ece == pytest.approx(0.4)
