"""The cost–rating frontier: what each contestant's rating costs per game, and
which contestants are Pareto-efficient (no other is rated at least as high for
at most the cost, and strictly better in one of the two)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def pareto_set(points: Mapping[str, tuple[float, float]]) -> set[str]:
    """The names whose (rating, cost) no other point dominates: b dominates a
    when rating_b ≥ rating_a and cost_b ≤ cost_a, one of them strictly. Equal
    points do not dominate each other, so both stay on the frontier."""
    efficient = set()
    for a, (rating_a, cost_a) in points.items():
        beaten = any(
            rating_b >= rating_a and cost_b <= cost_a and (rating_b, cost_b) != (rating_a, cost_a)
            for b, (rating_b, cost_b) in points.items()
            if b != a
        )
        if not beaten:
            efficient.add(a)
    return efficient


def frontier(
    ratings: Mapping[str, Mapping[str, Any]], usage: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """Per contestant with a rating and usage: its Bradley–Terry Elo, US$ and
    tokens (in + out) per game played, and whether it is on the cost frontier
    and on the token frontier."""
    rows: dict[str, dict[str, Any]] = {}
    for who, r in sorted(ratings.items()):
        used = usage.get(who)
        if not used or not used.get("games"):
            continue
        games = int(used["games"])
        rows[who] = {
            "elo": r["elo"],
            "elo_ci95": r.get("elo_ci95"),
            "cost_per_game": round(float(used["cost"]) / games, 6),
            "tokens_per_game": round((used["tokens_in"] + used["tokens_out"]) / games, 1),
        }
    on_cost = pareto_set({w: (v["elo"], v["cost_per_game"]) for w, v in rows.items()})
    on_tokens = pareto_set({w: (v["elo"], v["tokens_per_game"]) for w, v in rows.items()})
    for who, row in rows.items():
        row["pareto_cost"] = who in on_cost
        row["pareto_tokens"] = who in on_tokens
    return {"rating": "elo", "by_contestant": rows}
