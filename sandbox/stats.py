"""Aggregate figures over many transcripts (``sandbox stats``).

Per variant: games, termination reasons, win/lose/draw rates per role group
(the role label up to its first '/', e.g. 'wolves' for 'wolves/elite') with a
seeded 95% bootstrap confidence interval over games, fallbacks per seat kind and
reason, repairs, model calls, tokens, cost and latency.

Aborted games (the model provider failed too often, see sandbox/runner.py) end
in an all-draw that says nothing about the game, so the rates leave them out
unless asked; they still count under reasons, fallbacks and usage.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.core.events import DecisionMade
from sandbox.render.timeline import latency_of
from sandbox.runner import ABORTED
from sandbox.transcript import Transcript, TranscriptError, load

RESULTS = ("win", "lose", "draw")
BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 20240601


@dataclass
class GameFacts:
    """What one finished game contributes."""

    reason: str
    # one (role group, result) per seat
    seats: list[tuple[str, str]]
    fallbacks: Counter[tuple[str, str]]
    repairs: int
    calls: int
    tokens_in: int
    tokens_out: int
    cost: float
    latencies: list[float]


@dataclass
class VariantStats:
    games: list[GameFacts] = field(default_factory=list)
    unfinished: int = 0


def collect_paths(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.jsonl")))
        else:
            found.append(path)
    return found


def role_group(role: str) -> str:
    return role.split("/", 1)[0]


def game_facts(transcript: Transcript) -> GameFacts | None:
    outcome = transcript.outcome
    if outcome is None:
        return None
    header = transcript.header
    roles = header.get("roles") or {}
    kinds = {s: str(d.get("kind")) for s, d in (header.get("agents") or {}).items()}
    results = outcome.get("results") or {}
    seats = [(role_group(str(roles[s])), str(results.get(s, "?"))) for s in sorted(roles, key=int)]
    fallbacks: Counter[tuple[str, str]] = Counter()
    for event in transcript.events:
        if isinstance(event, DecisionMade) and event.fallback:
            fallbacks[(kinds.get(str(event.seat), "?"), event.fallback_reason)] += 1
    calls = transcript.calls
    latencies = [x for x in (latency_of(c) for c in calls) if x is not None]
    return GameFacts(
        reason=str(outcome.get("reason")),
        seats=seats,
        fallbacks=fallbacks,
        repairs=int((outcome.get("stats") or {}).get("repairs") or 0),
        calls=len(calls),
        tokens_in=sum(int(c.get("tokens_in") or 0) for c in calls),
        tokens_out=sum(int(c.get("tokens_out") or 0) for c in calls),
        cost=sum(float(c.get("cost") or 0.0) for c in calls),
        latencies=latencies,
    )


def gather(paths: Iterable[Path]) -> tuple[dict[str, VariantStats], list[tuple[str, str]]]:
    """Per-variant facts, and the files skipped with the reason."""
    per_variant: dict[str, VariantStats] = {}
    skipped: list[tuple[str, str]] = []
    for path in collect_paths(paths):
        try:
            transcript = load(path)
            facts = game_facts(transcript)
        except (TranscriptError, OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            skipped.append((str(path), _why(path, err)))
            continue
        bucket = per_variant.setdefault(str(transcript.header.get("variant")), VariantStats())
        if facts is None:
            bucket.unfinished += 1
        else:
            bucket.games.append(facts)
    return per_variant, skipped


def _why(path: Path, err: Exception) -> str:
    """The first line of the reason, without the path the listing already shows."""
    line = (str(err) or type(err).__name__).splitlines()[0]
    return line.removeprefix(f"{path}: ") or line


def rate_with_ci(
    games: Sequence[GameFacts], role: str, result: str, rng: random.Random
) -> dict[str, Any]:
    """Share of the role's seats with ``result``; CI by resampling whole games."""
    counted = [_count(g, role, result) for g in games]
    per_game = [(hits, n) for hits, n in counted if n]
    rate = _ratio(per_game)
    draws = sorted(
        _ratio([per_game[rng.randrange(len(per_game))] for _ in per_game])
        for _ in range(BOOTSTRAP_SAMPLES)
    )
    low = draws[int(0.025 * (BOOTSTRAP_SAMPLES - 1))]
    high = draws[int(0.975 * (BOOTSTRAP_SAMPLES - 1))]
    return {
        "rate": round(rate, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "seats": sum(n for _, n in per_game),
    }


def _count(game: GameFacts, role: str, result: str) -> tuple[int, int]:
    mine = [res for r, res in game.seats if r == role]
    return sum(1 for res in mine if res == result), len(mine)


def _ratio(pairs: Sequence[tuple[int, int]]) -> float:
    total = sum(n for _, n in pairs)
    return sum(h for h, _ in pairs) / total if total else 0.0


def summarise(
    per_variant: dict[str, VariantStats],
    seed: int = BOOTSTRAP_SEED,
    include_aborted: bool = False,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, bucket in sorted(per_variant.items()):
        rng = random.Random(seed)
        games = bucket.games
        rated = [g for g in games if include_aborted or g.reason != ABORTED]
        roles = sorted({r for g in rated for r, _ in g.seats})
        latencies = sorted(x for g in games for x in g.latencies)
        fallbacks: Counter[tuple[str, str]] = Counter()
        for g in games:
            fallbacks.update(g.fallbacks)
        out[name] = {
            "games": len(games),
            "unfinished": bucket.unfinished,
            "rated": len(rated),
            "reasons": dict(Counter(g.reason for g in games)),
            "roles": {
                role: {res: rate_with_ci(rated, role, res, rng) for res in RESULTS}
                for role in roles
            },
            "fallbacks": {f"{kind}/{reason}": n for (kind, reason), n in sorted(fallbacks.items())},
            "repairs": sum(g.repairs for g in games),
            "calls": sum(g.calls for g in games),
            "tokens_in": sum(g.tokens_in for g in games),
            "tokens_out": sum(g.tokens_out for g in games),
            "cost": round(sum(g.cost for g in games), 6),
            "latency_s": _latency(latencies),
        }
    return out


def _latency(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "mean": round(sum(values) / len(values), 3),
        "p50": round(values[len(values) // 2], 3),
        "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))], 3),
        "max": round(values[-1], 3),
    }
