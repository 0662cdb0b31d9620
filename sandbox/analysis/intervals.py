"""Confidence intervals: Wilson for counts of independent games, a cluster
bootstrap (resampling whole games) for items that share a game.

Every bootstrap of ``sandbox stats``, ``study``, ``report`` and ``export`` is this
one, drawn from ``random.Random(BOOTSTRAP_SEED)`` unless a seed is given, so the
same files always print the same intervals."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054
BOOTSTRAP_SEED = 20240601
BOOTSTRAP_SAMPLES = 1000


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for hits/n; None without data. Never [0, 0]: with
    0 hits the upper end is z²/(n+z²)."""
    if n <= 0:
        return None
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_bootstrap(
    per_game: Sequence[tuple[float, int]], rng: random.Random, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[float, float] | None:
    """95% percentile interval of sum(hits)/sum(n) resampling games (clusters).
    Items of one game (its seats, its ballots) are not independent of each other."""
    clusters = [(h, n) for h, n in per_game if n]
    if not clusters:
        return None
    draws = []
    for _ in range(samples):
        pick = [clusters[rng.randrange(len(clusters))] for _ in clusters]
        draws.append(sum(h for h, _ in pick) / sum(n for _, n in pick))
    draws.sort()
    return draws[int(0.025 * (samples - 1))], draws[int(0.975 * (samples - 1))]


def percentile_interval(values: Sequence[float]) -> tuple[float, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[int(0.025 * last)], ordered[int(0.975 * last)]


def clustered_rate_interval(
    per_game: Sequence[tuple[float, int]], rng: random.Random, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[float, float] | None:
    """The cluster bootstrap, except when it has no spread (every game gives the
    same share, e.g. 0 hits everywhere): then the Wilson interval with n = the
    number of games, the most cautious effective sample size. Never [0, 0]."""
    interval = cluster_bootstrap(per_game, rng, samples)
    if interval is None or interval[0] < interval[1]:
        return interval
    games = sum(1 for _, n in per_game if n)
    share = interval[0]
    return wilson(round(share * games), games)


def bootstrap_ci95(per_game: Sequence[tuple[int, int]], rng: random.Random) -> list[float]:
    """:func:`clustered_rate_interval` of (hits, items) per game, rounded to four
    places; [0, 0] without games."""
    interval = clustered_rate_interval(per_game, rng)
    if interval is None:
        return [0.0, 0.0]
    return [round(interval[0], 4), round(interval[1], 4)]
