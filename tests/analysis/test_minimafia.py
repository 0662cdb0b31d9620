"""Mini-Mafia's model (docs/study-reference.md, "Mini-Mafia"): hand-built cases for
every formula, and parameter recovery from outcomes simulated with known
parameters."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from sandbox.analysis.load import load_games
from sandbox.analysis.minimafia import (
    Lineup,
    brier,
    cross_validated,
    fit,
    fit_with_intervals,
    lineup_of,
    minimafia_summary,
    predict,
)
from tests.analysis.builders import write_transcript

# Known parameters (m, d, v) in the reported gauge: Σ(m + d) = 0, Σ log v = 0.
TRUE = {"a": (1.2, -0.6, 1.5), "b": (0.0, 0.4, 1.0), "c": (-0.8, -0.2, 1 / 1.5)}


def simulate(per_cell: int, seed: int) -> list[Lineup]:
    """Every I³ line-up of TRUE, ``per_cell`` games each, y ~ Bernoulli(p)."""
    rng = random.Random(seed)
    games = []
    for m in TRUE:
        for d in TRUE:
            for v in TRUE:
                p = predict(TRUE, Lineup(m, d, v, False))
                games += [Lineup(m, d, v, rng.random() < p) for _ in range(per_cell)]
    return games


def test_the_prediction_formula_by_hand() -> None:
    params = {"a": (0.5, 0.0, 1.0), "b": (0.0, -0.5, 2.0)}
    # logit p = v_b · (m_a − d_b) = 2 · (0.5 + 0.5) = 2
    assert predict(params, Lineup("a", "b", "b", True)) == pytest.approx(1 / (1 + math.exp(-2)))
    # a stranger sits at m = d = 0, v = 1: a coin against itself
    assert predict(params, Lineup("x", "x", "x", True)) == 0.5
    assert brier([(0.8, True), (0.3, False)]) == pytest.approx((0.04 + 0.09) / 2)


def test_the_fit_reports_the_fixed_gauge() -> None:
    found = fit(simulate(5, 1), sorted(TRUE))
    assert sum(m + d for m, d, _ in found.values()) == pytest.approx(0.0, abs=1e-9)
    assert sum(math.log(v) for _, _, v in found.values()) == pytest.approx(0.0, abs=1e-9)


def test_parameter_recovery_within_the_intervals() -> None:
    """1080 games (27 line-ups × 40) simulated from TRUE: every parameter comes
    back inside its 95% bootstrap interval. One simulated study is one draw,
    fixed by its seed: measured over 20 draws, 90% of the true values fall
    inside their intervals and 12 of 20 draws have all nine inside
    (docs/study-reference.md, "Mini-Mafia"), so the point estimates are checked too."""
    found = fit_with_intervals(simulate(40, seed=2), seed=1, samples=100)
    for name, truth in TRUE.items():
        for k, key in enumerate(("m", "d", "v")):
            low, high = found[name][f"{key}_ci95"]
            assert low <= truth[k] <= high, (name, key, truth[k], low, high)
            assert found[name][key] == pytest.approx(truth[k], abs=0.4), (name, key)
        assert found[name]["games"] == {"mafioso": 360, "detective": 360, "town": 360}


def test_the_cross_validated_brier_score_beats_its_baselines() -> None:
    cv = cross_validated(simulate(40, seed=3), folds=5, seed=1)
    assert cv is not None and cv["games"] == 1080
    assert cv["brier"]["coin"] == 0.25  # p = ½ whatever happens: (½)² every game
    assert cv["brier"]["model"] < cv["brier"]["base_rate"] < cv["brier"]["coin"]
    assert cv["reduction"]["coin"] == pytest.approx(1 - cv["brier"]["model"] / 0.25, abs=1e-3)
    assert cross_validated(simulate(40, 3)[:4], folds=5) is None


def test_the_mafioso_baseline_by_hand() -> None:
    """Ten games, the mafia wins all: each fold trains on 8, so the base rate
    forecasts 1 (Brier 0) and the mafioso's rate (8 + 1)/(8 + 2) = 0.9
    (Brier 0.01)."""
    cv = cross_validated([Lineup("a", "a", "a", True)] * 10, folds=5)
    assert cv is not None
    assert cv["brier"]["base_rate"] == 0.0 and cv["brier"]["mafioso_rate"] == 0.01
    assert cv["reduction"]["base_rate"] is None  # nothing to reduce


def test_the_line_up_of_a_werewolf_game(tmp_path: Path) -> None:
    roles = {1: "werewolf", 2: "seer", 3: "villager", 4: "villager"}
    who = {1: "a", 2: "b", 3: "c", 4: "c"}
    results = {1: "lose", 2: "win", 3: "win", 4: "win"}
    write_transcript(tmp_path / "g.jsonl", "werewolf", roles, who, [], results)
    mixed = {**who, 4: "a"}
    write_transcript(tmp_path / "h.jsonl", "werewolf", roles, mixed, [], results, seed=2)
    games = sorted(load_games([tmp_path]).games, key=lambda g: g.header["seed"])
    found = lineup_of(games[0])
    assert found is not None
    assert (found.mafioso, found.detective, found.town, found.mafia_won) == (
        "a",
        "b",
        "c",
        False,
    )
    assert lineup_of(games[1]) is None  # two contestants on the villager seats
    summary = minimafia_summary(games, samples=10)
    assert summary is not None and summary["games"] == 1
    assert summary["cross_validation"] is None  # fewer games than folds
