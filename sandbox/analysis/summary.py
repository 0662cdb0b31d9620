"""One JSON-ready summary of a set of games: setups, win rates by contestant and
side (Wilson intervals over games), ratings, head-to-head, usage, metrics and
belief calibration. Used by ``sandbox study``, ``sandbox stats --by-contestant``
and ``sandbox report``."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Any

from sandbox.analysis.deception import deception_summary
from sandbox.analysis.detect import detectability
from sandbox.analysis.duel_graph import deception_validity
from sandbox.analysis.failures import failure_summary, without_hinged
from sandbox.analysis.frontier import frontier
from sandbox.analysis.intervals import BOOTSTRAP_SEED, wilson
from sandbox.analysis.lies import lie_summary
from sandbox.analysis.load import Loaded
from sandbox.analysis.metrics import Item, figure, metrics_summary
from sandbox.analysis.minimafia import minimafia_summary
from sandbox.analysis.nash import nash_summary
from sandbox.analysis.persuasion import persuasion_summary, speech_persuasion_summary
from sandbox.analysis.ratings import matches_of, pairwise, rate
from sandbox.analysis.seating import seating_by_setup
from sandbox.analysis.tables import belief_rows, call_rows, game_name, seat_rows
from sandbox.analysis.validity import anchor, failure_headline, separation
from sandbox.session.runner import ABORTED
from sandbox.transcript import EventRow, Transcript


def setups(games: Sequence[Transcript[EventRow]]) -> list[dict[str, Any]]:
    """The distinct setups (variant, game file name, player count) with their game counts."""
    counts: dict[tuple[str, str, int], int] = {}
    for game in games:
        key = (game.variant, game_name(game), len(game.roles))
        counts[key] = counts.get(key, 0) + 1
    return [
        {"variant": v, "game_name": n, "players": p, "games": c}
        for (v, n, p), c in sorted(counts.items())
    ]


def pooling_warning(found: list[dict[str, Any]]) -> str | None:
    if len(found) <= 1:
        return None
    names = "; ".join(f"{s['variant']}/{s['game_name']}/{s['players']}p" for s in found)
    return f"these games pool {len(found)} different setups ({names}); figures are per setup"


def _rate(hits: int, n: int) -> dict[str, Any]:
    ci = wilson(hits, n)
    return {
        "rate": round(hits / n, 4) if n else None,
        "wins": hits,
        "games": n,
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def win_rates(games: Sequence[Transcript[EventRow]]) -> dict[str, dict[str, Any]]:
    """contestant -> side -> wins over games (one observation per game: the seats
    of one side share their result)."""
    tally: dict[str, dict[str, list[int]]] = {}
    for game in games:
        played: dict[tuple[str, str], bool] = {}
        for seat, side in game.sides.items():
            key = (game.contestants.get(seat, "?"), side)
            played[key] = played.get(key, False) or game.results.get(seat) == "win"
        for (who, side), won in played.items():
            cell = tally.setdefault(who, {}).setdefault(side, [0, 0])
            cell[0] += int(won)
            cell[1] += 1
            total = tally[who].setdefault("all", [0, 0])
            total[0] += int(won)
            total[1] += 1
    return {
        who: {side: _rate(h, n) for side, (h, n) in sorted(sides.items())}
        for who, sides in sorted(tally.items())
    }


def head_to_head(games: Sequence[Transcript[EventRow]]) -> dict[str, dict[str, Any]]:
    """a -> b -> share of a's meetings with b (on opposite sides) that a won;
    draws count half."""
    wins = pairwise(matches_of(games))
    players = sorted({p for pair in wins for p in pair})
    table: dict[str, dict[str, Any]] = {}
    for a in players:
        for b in players:
            met = wins.get((a, b), 0.0) + wins.get((b, a), 0.0)
            if a != b and met:
                table.setdefault(a, {})[b] = {
                    "rate": round(wins.get((a, b), 0.0) / met, 4),
                    "meetings": met,
                }
    return table


def usage(games: Sequence[Transcript[EventRow]]) -> dict[str, dict[str, Any]]:
    """Per contestant: decisions, fallback and repair rates, calls, tokens, cost,
    latency (each model's first call of a game left out: start-up)."""
    seats = [row for g in games for row in seat_rows(g)]
    calls = [row for g in games for row in call_rows(g)]
    out: dict[str, dict[str, Any]] = {}
    for who in sorted({r["contestant"] for r in seats}):
        mine = [r for r in seats if r["contestant"] == who]
        decisions = sum(r["decisions"] for r in mine)
        latencies = [
            c["latency_s"]
            for c in calls
            if c["contestant"] == who and not c["first_call"] and c["latency_s"] is not None
        ]
        played = len({r["game_id"] for r in mine})
        cost = sum(r["cost"] for r in mine)
        out[who] = {
            "games": played,
            "decisions": decisions,
            "fallback_rate": _share(sum(r["fallbacks"] for r in mine), decisions),
            "repair_rate": _share(sum(r["repairs"] for r in mine), decisions),
            "calls": sum(r["calls"] for r in mine),
            "tokens_in": sum(r["tokens_in"] for r in mine),
            "tokens_out": sum(r["tokens_out"] for r in mine),
            "cost": round(cost, 6),
            "cost_per_game": round(cost / played, 6) if played else None,
            "latency_s_median": round(statistics.median(latencies), 3) if latencies else None,
        }
    return out


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def calibration(
    games: Sequence[Transcript[EventRow]], bins: int = 10, seed: int = BOOTSTRAP_SEED
) -> dict[str, Any] | None:
    """Belief probes: accuracy of the most likely side (with a cluster-bootstrap
    interval over games), Brier score, log loss and expected calibration error
    (ECE), per contestant and per day."""
    rows = [r for g in games for r in belief_rows(g) if r["p_true"] is not None]
    if not rows:
        return None
    rng = random.Random(seed)

    def cell(subset: list[dict[str, Any]]) -> dict[str, Any]:
        right = [r["said"] == r["truth"] for r in subset]
        hits = [
            Item(r["game_id"], str(r["contestant"]), float(ok))
            for r, ok in zip(subset, right, strict=True)
        ]
        return {
            "guesses": len(subset),
            "accuracy": round(sum(right) / len(subset), 4),
            "accuracy_ci95": figure(hits, rng)["ci95"],
            "brier": round(statistics.fmean(r["brier"] for r in subset), 4),
            "log_loss": round(statistics.fmean(r["log_loss"] for r in subset), 4),
            "ece": round(expected_calibration_error([r["p_said"] for r in subset], right, bins), 4),
        }

    who = sorted({str(r["contestant"]) for r in rows})
    days = sorted({int(r["day"]) for r in rows})
    return {
        "overall": cell(rows),
        "by_contestant": {w: cell([r for r in rows if str(r["contestant"]) == w]) for w in who},
        "by_day": {str(d): cell([r for r in rows if r["day"] == d]) for d in days},
    }


def expected_calibration_error(
    confidence: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> float:
    """Top-label ECE: forecasts grouped in ``bins`` equal-width confidence bins;
    sum over bins of (bin size / n) × |share correct − mean confidence|."""
    if not confidence:
        return 0.0
    groups: dict[int, list[tuple[float, bool]]] = {}
    for p, ok in zip(confidence, correct, strict=True):
        groups.setdefault(min(int(p * bins), bins - 1), []).append((p, ok))
    n = len(confidence)
    return sum(
        len(g) / n * abs(statistics.fmean(ok for _, ok in g) - statistics.fmean(p for p, _ in g))
        for g in groups.values()
    )


def without_failures(
    rated: Sequence[Transcript[EventRow]],
    ratings: dict[str, Any],
    nash: dict[str, Any],
    seed: int,
    samples: int,
) -> dict[str, Any]:
    """The contestant ratings again without the games that hinged on a losing
    seat's rule failure (sandbox.analysis.failures), and each figure's change
    (without − with). With nothing to leave out the figures are the same ones."""
    kept = without_hinged(rated)
    if len(kept) == len(rated):
        clean, clean_nash = ratings, nash.get("by_contestant")
    else:
        clean = rate(kept, seed=seed, samples=samples)
        clean_nash = nash_summary(matches_of(kept), [], seed, samples, roles=False).get(
            "by_contestant"
        )
    change: dict[str, dict[str, float | None]] = {}
    for who, full in ratings.items():
        now = clean.get(who)
        was_nash = (nash.get("by_contestant") or {}).get(who)
        now_nash = (clean_nash or {}).get(who)
        change[who] = {
            "elo": None if now is None else round(now["elo"] - full["elo"], 1),
            "openskill_mu": None
            if now is None
            else round(now["openskill_mu"] - full["openskill_mu"], 3),
            "nash": None
            if was_nash is None or now_nash is None
            else round(now_nash["nash"] - was_nash["nash"], 4),
        }
    return {
        "excluded": len(rated) - len(kept),
        "games": len(kept),
        "ratings": clean,
        "nash": clean_nash,
        "change": change,
    }


def summarise_games(loaded: Loaded, seed: int = BOOTSTRAP_SEED, samples: int = 0) -> dict[str, Any]:
    """Everything a study reports, over the finished, non-aborted games."""
    rated = [g for g in loaded.games if (g.outcome or {}).get("reason") != ABORTED]
    found = setups(loaded.games)
    ratings = rate(rated, seed=seed, samples=samples)
    nash = nash_summary(matches_of(rated), matches_of(rated, per_role=True), seed, samples)
    used = usage(loaded.games)
    without = without_failures(rated, ratings, nash, seed, samples)
    deceit = deception_summary(rated, seed, samples)
    return {
        "games": len(loaded.games),
        "rated": len(rated),
        "unfinished": len(loaded.unfinished),
        "duplicates_skipped": loaded.duplicates,
        "setups": found,
        "pooling_warning": pooling_warning(found),
        "win_rates": win_rates(rated),
        "ratings": ratings,
        "ratings_by_role": rate(rated, per_role=True, seed=seed, samples=samples),
        "nash": nash,
        "rule_failures": failure_summary(rated),
        "ratings_without_failures": without,
        "frontier": frontier(ratings, used),
        "head_to_head": head_to_head(rated),
        "usage": used,
        "metrics": metrics_summary(rated, seed),
        "beliefs": calibration(rated, seed=seed),
        "persuasion": persuasion_summary(rated, seed),
        "speech_persuasion": speech_persuasion_summary(rated, seed),
        "lies": lie_summary(rated, seed),
        "deception": deceit,
        "validity": validity(rated, ratings, without, deceit, seed, samples),
        "minimafia": minimafia_summary(rated, seed, samples),
        "detectability": detectability(rated),
    }


def validity(
    rated: Sequence[Transcript[EventRow]],
    ratings: dict[str, Any],
    without: dict[str, Any],
    deceit: dict[str, Any] | None,
    seed: int,
    samples: int,
) -> dict[str, Any]:
    """The validity report (docs/study-reference.md, "Validity"): separation, the
    rating without games decided after a rule failure, seating effects, and
    which deceive/detect ratings compare, and the Elo anchored to a frozen
    reference bot when one is a contestant."""
    return {
        "separation": separation(ratings, len(rated)),
        "rule_failures": failure_headline(ratings, without),
        "seating": seating_by_setup(rated, seed, samples),
        "deception": deception_validity(deceit),
        "anchor": anchor(rated, seed, samples),
    }
