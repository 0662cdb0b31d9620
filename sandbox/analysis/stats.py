"""Aggregate figures over many transcripts (``sandbox stats``).

Per variant: games, termination reasons, win/lose/draw rates per role group
(the role label up to its first '/', e.g. 'wolves' for 'wolves/elite') with a
seeded 95% bootstrap confidence interval over games, fallbacks per seat kind and
reason, repairs, model calls, tokens, cost and latency; on request, how well
the LLM seats' belief probes name the other seats' true sides
(:mod:`sandbox.analysis.belief_stats`).

Aborted games (the model provider failed too often, see sandbox/session/runner.py) end
in an all-draw that says nothing about the game, so the rates leave them out
unless asked; they still count under reasons, fallbacks and usage.

A game is counted once: copies of one study or batch game (same identity,
sandbox/transcript/identity.py, e.g. a re-run batch in the same folder) are skipped
and counted under ``duplicates``. Each variant lists its setups (game file name,
player count) and says plainly when it pools several (``--by-setup`` splits
them), and gives win rates per contestant (or model) and side with Wilson
intervals over games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.analysis.belief_stats import BeliefFacts, belief_facts, summarise_beliefs
from sandbox.analysis.intervals import BOOTSTRAP_SEED, bootstrap_ci95, wilson
from sandbox.analysis.tables import setup_name
from sandbox.core.events import DecisionMade
from sandbox.session.runner import ABORTED
from sandbox.transcript import Transcript, TranscriptError, latency_of, read_transcript
from sandbox.transcript.identity import each_game_once
from sandbox.transcript.sides import role_group, side_of

# BOOTSTRAP_SEED and role_group are named here too because ``sandbox stats``,
# batches and the Ray backend import them from this module.
__all__ = [
    "RESULTS",
    "GameFacts",
    "VariantStats",
    "by_contestant",
    "game_facts",
    "gather",
    "players_of",
    "rate_with_ci",
    "summarise",
]

RESULTS = ("win", "lose", "draw")


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
    # (game file name, player count): games of different setups are not comparable
    setup: tuple[str, int] = ("?", 0)
    # one (contestant or model, side, won) per contestant and side that played
    players: list[tuple[str, str, bool]] = field(default_factory=list)
    # of tokens_out, those a reasoning model spent thinking (priced in cost with
    # the rest of the completion); of tokens_in, those read from the provider's cache
    reasoning_tokens: int = 0
    cached_tokens: int = 0


@dataclass
class VariantStats:
    games: list[GameFacts] = field(default_factory=list)
    unfinished: int = 0
    duplicates: int = 0  # copies of a game already counted (same identity)
    # one per readable transcript, finished or not; only when beliefs are asked for
    beliefs: list[BeliefFacts] = field(default_factory=list)


def game_facts(transcript: Transcript) -> GameFacts | None:
    outcome = transcript.outcome
    if outcome is None:
        return None
    header = transcript.header
    roles = header.get("roles") or {}
    results = outcome.get("results") or {}
    seats = [(role_group(str(roles[s])), str(results.get(s, "?"))) for s in sorted(roles, key=int)]
    fallbacks: Counter[tuple[str, str]] = Counter()
    for seq, event in enumerate(transcript.events):
        if isinstance(event, DecisionMade) and event.fallback:
            # credited to the agent that played the seat then (fork, take-over)
            kind = str(transcript.agent_at(event.seat, seq).get("kind") or "?")
            fallbacks[(kind, event.fallback_reason)] += 1
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
        setup=(setup_name(header), len(roles)),
        players=players_of(header, results),
        reasoning_tokens=sum(int(c.get("reasoning_tokens") or 0) for c in calls),
        cached_tokens=sum(int(c.get("cached_tokens") or 0) for c in calls),
    )


def players_of(header: dict[str, Any], results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(contestant, side, won) once per contestant and side: a study's contestant,
    else the seat's model (LLM seats) or agent kind. Seats of one side share
    their result, so a side counts once per game."""
    variant = str(header.get("variant"))
    named = header.get("contestants") or {}
    agents = header.get("agents") or {}
    played: dict[tuple[str, str], bool] = {}
    for seat, role in (header.get("roles") or {}).items():
        agent = agents.get(seat) or {}
        who = str(named.get(seat) or agent.get("model") or agent.get("kind") or "?")
        key = (who, side_of(variant, str(role)))
        played[key] = played.get(key, False) or results.get(seat) == "win"
    return [(who, side, won) for (who, side), won in sorted(played.items())]


def gather(
    paths: Iterable[Path], beliefs: bool = False, by_setup: bool = False
) -> tuple[dict[str, VariantStats], list[tuple[str, str]]]:
    """Per-variant facts (with ``by_setup``, per variant, game file name and player
    count; with ``beliefs``, the belief probes too), and the files skipped with
    the reason. A game with an identity counts once (its first finished copy)."""

    def read(path: Path) -> tuple[dict[str, Any], GameFacts | None, BeliefFacts | None]:
        transcript = read_transcript(path)
        probed = belief_facts(transcript) if beliefs else None
        return transcript.header, game_facts(transcript), probed

    gathered = each_game_once(paths, read, UNREADABLE, finished_first=True)
    per_variant: dict[str, VariantStats] = {}
    for header, facts, probed in gathered.games:
        bucket = per_variant.setdefault(_bucket_key(header, by_setup), VariantStats())
        if probed is not None:
            bucket.beliefs.append(probed)
        if facts is None:
            bucket.unfinished += 1
        else:
            bucket.games.append(facts)
    for copy in gathered.duplicates:
        per_variant.setdefault(_bucket_key(copy.header, by_setup), VariantStats()).duplicates += 1
    return per_variant, gathered.skipped


# What a malformed but parseable transcript can raise while its facts are read
# (a header whose roles are not a table, a call whose tokens are text, ...).
UNREADABLE = (TranscriptError, OSError, ValueError, KeyError, TypeError, AttributeError)


def _bucket_key(header: dict[str, Any], by_setup: bool) -> str:
    variant = str(header.get("variant"))
    if not by_setup:
        return variant
    return f"{variant} · {setup_name(header)} · {len(header.get('roles') or {})}p"


def rate_with_ci(
    games: Sequence[GameFacts], role: str, result: str, rng: random.Random
) -> dict[str, Any]:
    """Share of the role's seats with ``result``; CI by resampling whole games."""
    counted = [_count(g, role, result) for g in games]
    per_game = [(hits, n) for hits, n in counted if n]
    return {
        "rate": round(_ratio(per_game), 4),
        "ci95": bootstrap_ci95(per_game, rng),
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
    beliefs: bool = False,
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
            "reasoning_tokens": sum(g.reasoning_tokens for g in games),
            "cached_tokens": sum(g.cached_tokens for g in games),
            "cost": round(sum(g.cost for g in games), 6),
            "latency_s": _latency(latencies),
            "duplicates": bucket.duplicates,
            "setups": _setups(games),
            "pooling_warning": _pooling(_setups(games)),
            "by_contestant": by_contestant(rated),
        }
        if beliefs:
            # its own generator: asking for beliefs never moves the win-rate intervals
            out[name]["beliefs"] = summarise_beliefs(bucket.beliefs, random.Random(seed))
    return out


def _setups(games: Sequence[GameFacts]) -> list[dict[str, Any]]:
    counts = Counter(g.setup for g in games)
    return [{"name": n, "players": p, "games": c} for (n, p), c in sorted(counts.items())]


def _pooling(setups: Sequence[dict[str, Any]]) -> str | None:
    if len(setups) <= 1:
        return None
    names = ", ".join(f"{s['name']} ({s['players']} players)" for s in setups)
    return f"pools {len(setups)} different setups: {names}; use --by-setup to split them"


def by_contestant(games: Sequence[GameFacts]) -> dict[str, dict[str, Any]]:
    """contestant (or model) -> side -> win rate over games, Wilson 95% interval."""
    tally: dict[str, dict[str, list[int]]] = {}
    for game in games:
        for who, side, won in game.players:
            cell = tally.setdefault(who, {}).setdefault(side, [0, 0])
            cell[0] += int(won)
            cell[1] += 1
    out: dict[str, dict[str, Any]] = {}
    for who, sides in sorted(tally.items()):
        out[who] = {}
        for side, (wins, n) in sorted(sides.items()):
            low, high = wilson(wins, n) or (0.0, 1.0)
            out[who][side] = {
                "rate": round(wins / n, 4),
                "wins": wins,
                "games": n,
                "ci95": [round(low, 4), round(high, 4)],
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
