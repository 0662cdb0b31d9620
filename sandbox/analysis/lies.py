"""Lie rates per contestant from the statements table (docs/study-reference.md,
"Statements: who lied").

A contestant's lie rate is lies / decided claims over its seats' claims, a
decided claim being one labelled ``true``, ``lie`` or ``error`` (``unknowable``
ones are left out). The seats of one game are not independent (they hear each
other, and one deal decides them all), so the 95% interval is the cluster
bootstrap over games (``metrics.figure``, which uses
:func:`~sandbox.analysis.intervals.clustered_rate_interval`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.analysis.metrics import Item, figure
from sandbox.analysis.statements import Row, statements
from sandbox.transcript import EventRow, Transcript

DECIDED = ("true", "lie", "error")


def lie_items(rows: Sequence[Row]) -> list[tuple[Item, str, str]]:
    """(item for the speaker's contestant: 1 a lie, 0 not; the speaker's side;
    the claim type) per decided claim."""
    return [
        (
            Item(str(r["game"]), str(r["contestant"]), 1.0 if r["label"] == "lie" else 0.0),
            str(r["side"]),
            str(r["claim_type"]),
        )
        for r in rows
        if r["label"] in DECIDED
    ]


def lie_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED
) -> dict[str, Any] | None:
    """overall, by_contestant, by_side, by_role ("contestant@side") and
    by_claim_type lie rates with cluster-bootstrap intervals, and the count of
    each label; None without a claim."""
    rows = statements(games)
    if not rows:
        return None
    pairs = lie_items(rows)
    rng = random.Random(seed)
    items = [item for item, _, _ in pairs]

    def split(key: Any) -> dict[str, Any]:
        names = sorted({key(i, s, k) for i, s, k in pairs})
        return {n: figure([i for i, s, k in pairs if key(i, s, k) == n], rng) for n in names}

    return {
        "overall": figure(items, rng),
        "by_contestant": split(lambda i, s, k: i.contestant),
        "by_side": split(lambda i, s, k: s),
        "by_role": split(lambda i, s, k: f"{i.contestant}@{s}"),
        "by_claim_type": split(lambda i, s, k: k),
        "labels": dict(sorted(Counter(str(r["label"]) for r in rows).items())),
    }
