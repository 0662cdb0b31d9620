"""Does a study's rating separate its contestants? (issue 39, item 3: the
first part of the validity report; docs/study-reference.md, "Validity: separation").

Two contestants are *separated* when their 95% rating intervals exclude each
other (one's low end above the other's high end). A bootstrap interval's
half-width shrinks about as 1/√N with N games, so the closest pair not yet
separated (the smallest gap between points) would need about

    N · ((h_a + h_b) / |x_a − x_b|)²

games (h: each interval's half-width, x: the points) for its intervals to stop
overlapping: an estimate for planning, not a promise. An interval of zero
width (every resample gave the same rating) separates nothing: the study is
too small to judge.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.analysis.ratings import (
    BOOTSTRAP_SAMPLES,
    bradley_terry,
    interval_around,
    matches_of,
    pairwise,
    tidy,
)
from sandbox.transcript import EventRow, Transcript

SCALES = {"elo": "elo_ci95", "openskill_mu": "openskill_mu_ci95"}


def separation(
    ratings: Mapping[str, Mapping[str, Any]], games: int, scale: str = "elo"
) -> dict[str, Any] | None:
    """Every pair of contestants on ``scale`` (``elo`` or ``openskill_mu``):
    separated or not, the closest pair not separated and the games it would
    need, and a plain warning when some pair is not separated. None with
    fewer than two rated contestants."""
    points: dict[str, tuple[float, tuple[float, float]]] = {}
    for name, r in ratings.items():
        interval = r.get(SCALES[scale])
        if r.get(scale) is not None and interval:
            points[name] = (float(r[scale]), (float(interval[0]), float(interval[1])))
    if len(points) < 2:
        return None
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(sorted(points), 2):
        (xa, (la, ha)), (xb, (lb, hb)) = points[a], points[b]
        # A zero-width interval means every resample gave the same rating
        # (e.g. one contestant won every game): too few games to judge, not a
        # precise rating, so such a pair does not count as separated.
        flat = la == ha or lb == hb
        apart = not flat and (la > hb or lb > ha)
        gap = abs(xa - xb)
        width = (ha - la) / 2 + (hb - lb) / 2
        need = None if apart or flat or gap == 0 else math.ceil(games * (width / gap) ** 2)
        pairs.append(
            {
                "a": a,
                "b": b,
                "separated": apart,
                "no_spread": flat,
                "gap": round(gap, 3),
                "games_needed": need,
            }
        )
    open_pairs = [p for p in pairs if not p["separated"]]
    closest = min(open_pairs, key=lambda p: p["gap"], default=None)
    return {
        "scale": scale,
        "games": games,
        "pairs": pairs,
        "separated": len(pairs) - len(open_pairs),
        "total": len(pairs),
        "closest": closest,
        "warning": _warning(open_pairs, closest, len(pairs), games),
    }


def _warning(
    open_pairs: list[dict[str, Any]], closest: dict[str, Any] | None, total: int, games: int
) -> str | None:
    if closest is None:
        return None
    text = (
        f"the study is too small to separate {len(open_pairs)} of {total} pairs of contestants "
        f"after {games} games"
    )
    if closest["no_spread"]:
        return (
            f"{text}; the rating interval of {closest['a']} or {closest['b']} has no spread "
            "(every resample gave the same rating)"
        )
    if closest["games_needed"] is None:
        return f"{text}; {closest['a']} and {closest['b']} have the same rating"
    return (
        f"{text} (95% intervals overlap); the closest pair, {closest['a']} and "
        f"{closest['b']}, would need about {closest['games_needed']} games"
    )


def failure_headline(
    ratings: Mapping[str, Mapping[str, Any]], without: Mapping[str, Any]
) -> dict[str, Any]:
    """The rating with and without the games that hinged on a losing seat's
    rule failure (sandbox.analysis.failures), as a headline: per contestant the
    Elo with every game, without those games, and the change (without − with);
    ``moved`` names contestants whose Elo without them falls outside the 95%
    interval of the Elo with them (the rule failures, not the play, carried
    that rating)."""
    clean = without.get("ratings") or {}
    rows: dict[str, dict[str, Any]] = {}
    moved: list[str] = []
    for who, full in sorted(ratings.items()):
        now = clean.get(who)
        elo_without = None if now is None else now.get("elo")
        interval = full.get("elo_ci95")
        rows[who] = {
            "elo_with": full.get("elo"),
            "elo_ci95_with": interval,
            "elo_without": elo_without,
            "change": (without.get("change") or {}).get(who, {}).get("elo"),
        }
        if elo_without is not None and interval and not interval[0] <= elo_without <= interval[1]:
            moved.append(who)
    excluded = int(without.get("excluded") or 0)
    line = (
        f"{excluded} game(s) hinged on a losing seat's rule failure; without them "
        + (
            "the Elo of " + ", ".join(moved) + " leaves its 95% interval"
            if moved
            else "every Elo stays inside its 95% interval"
        )
        if excluded
        else None
    )
    return {
        "excluded": excluded,
        "games": without.get("games"),
        "by_contestant": rows,
        "moved": moved,
        "headline": line,
    }


# ------------------------------------------------------- frozen reference

ANCHOR_ELO = 1500.0  # the Elo a frozen reference is pinned at


def references(games: Sequence[Transcript[EventRow]]) -> dict[str, str]:
    """contestant -> its frozen tag (``<variant>/level-<n>/v1``, written by a
    deducing bot into the header's agents: sandbox.deduction.mind), for the
    contestants whose every seat in every game carried the same one."""
    tags: dict[str, set[str | None]] = {}
    for game in games:
        agents = game.agents
        for seat, who in game.contestants.items():
            tag = agents.get(seat, {}).get("reference")
            tags.setdefault(who, set()).add(str(tag) if tag else None)
    out: dict[str, str] = {}
    for who, found in sorted(tags.items()):
        if len(found) == 1 and (tag := next(iter(found))) is not None:
            out[who] = tag
    return out


def anchor(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any] | None:
    """The Elo scale pinned to a frozen reference in the study (the one with
    the most games; ties: the first tag): its Elo is fixed at ANCHOR_ELO and
    every other contestant's is ANCHOR_ELO + (its Elo − the reference's). The
    interval of that difference is taken per bootstrap resample (the same
    resamples of whole games as the ratings), so it measures the distance to
    the reference, not to the mean. None without a reference."""
    found = references(games)
    if not found:
        return None
    matches = matches_of(games)
    if not matches:
        return None
    played = {who: sum(1 for m in matches if any(who in t for t in m.teams)) for who in found}
    ref = min(found, key=lambda who: (-played[who], found[who], who))
    point = bradley_terry(pairwise(matches))
    if ref not in point:
        return None
    draws: dict[str, list[float]] = {}
    rng = random.Random(seed + 1)
    for _ in range(samples or BOOTSTRAP_SAMPLES):
        sample = [matches[rng.randrange(len(matches))] for _ in matches]
        elo = bradley_terry(pairwise(sample))
        if ref in elo:  # a resample without the reference says nothing about it
            for who, value in elo.items():
                draws.setdefault(who, []).append(value - elo[ref])
    rows: dict[str, dict[str, Any]] = {}
    for who, value in sorted(point.items()):
        pinned = ANCHOR_ELO + value - point[ref]
        interval = (
            None
            if who == ref
            else interval_around(pinned, [ANCHOR_ELO + d for d in draws.get(who, [])], 1)
        )
        rows[who] = {"elo": tidy(pinned, 1), "elo_ci95": interval}
    return {
        "reference": ref,
        "tag": found[ref],
        "elo": ANCHOR_ELO,
        "references": found,
        "ratings": rows,
        "note": (
            f"Elo anchored to the frozen reference {ref} ({found[ref]}), fixed at "
            f"{ANCHOR_ELO:g}: every other Elo is its distance from it"
        ),
    }
