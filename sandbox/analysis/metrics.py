"""Behaviour metrics computed from the events alone (no model calls).

Each variant declares its metrics (``Variant.research.metrics()``, in its folder's
``metrics.py``); this module computes their figures. Every metric is a list of
*items* (game, contestant, value): a rate metric's
value is 1 or 0 (a hit or not), a timing metric's value is a day number. A
metric's figure is the mean value, per contestant and overall, with a 95%
cluster-bootstrap interval over games (items of one game are not independent).
Definitions and formulas: docs/study-reference.md, "Behaviour metrics".
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED, cluster_bootstrap, clustered_rate_interval
from sandbox.core.metrics import Metric, MetricItem
from sandbox.games.registry import find_variant
from sandbox.transcript import EventRow, Transcript

Item = MetricItem  # one metric observation: (game, contestant, value)

__all__ = ["Item", "Metric", "figure", "items_of", "metrics_of", "metrics_summary"]


def metrics_of(variant: str) -> Mapping[str, Metric]:
    """The behaviour metrics ``variant`` declares (``Variant.research.metrics``); none for
    a variant that declares none or is not registered."""
    found = find_variant(variant)
    return found.research.metrics() if found is not None else {}


def items_of(games: Sequence[Transcript[EventRow]], metric: Metric) -> list[Item]:
    return [item for game in games for item in metric(game)]


def figure(items: Sequence[Item], rng: random.Random) -> dict[str, Any]:
    """Mean value, item count and a 95% cluster-bootstrap interval over games."""
    if not items:
        return {"value": None, "n": 0, "games": 0, "ci95": None}
    per_game: dict[str, list[float]] = {}
    for item in items:
        per_game.setdefault(item.game, []).append(item.value)
    clusters = [(sum(v), len(v)) for v in per_game.values()]
    is_rate = all(i.value in (0.0, 1.0) for i in items)
    ci = clustered_rate_interval(clusters, rng) if is_rate else cluster_bootstrap(clusters, rng)
    return {
        "value": round(sum(i.value for i in items) / len(items), 4),
        "n": len(items),
        "games": len(per_game),
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def metrics_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED
) -> dict[str, Any]:
    """variant -> metric -> {overall, by_contestant} over finished games."""
    out: dict[str, Any] = {}
    for variant in sorted({g.variant for g in games}):
        mine = [g for g in games if g.variant == variant]
        table: dict[str, Any] = {}
        for name, metric in metrics_of(variant).items():
            rng = random.Random(seed)
            items = items_of(mine, metric)
            players = sorted({i.contestant for i in items})
            table[name] = {
                "overall": figure(items, rng),
                "by_contestant": {
                    p: figure([i for i in items if i.contestant == p], rng) for p in players
                },
            }
        out[variant] = table
    return out
