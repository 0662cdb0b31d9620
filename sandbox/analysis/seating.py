"""Did the seat, or the order of speaking, move the results? (issue 39, item 3;
docs/study-reference.md, "Validity: seat and speaking order").

One *item* per seat per game: its side, whether it won (1, else 0), its seat
number and, on the first day with discussion, its place in the speaking order
(1 = its first speech came first among that day's speakers; last words are not
discussion and do not count). Sides win at different rates by design, so each
item is measured against its side: the residual

    r = won − base(side),  base(side) = the share of that side's items won

(over the same games), and the effect of a group g of items (seat 3, speaking
second, the first speaker, the last speaker) is the mean residual of its items,

    effect(g) = (1/|g|) Σ_{i ∈ g} r_i,

a win rate above (or below) what the item's side gets anyway; over every item
the residuals sum to 0. Interval: the seats of one game are not independent
(one side's win is the other's loss), so the 95% interval is a cluster
bootstrap over games: whole games resampled with replacement, base and effect
recomputed on each resample, the 2.5th and 97.5th percentiles taken. An effect
whose interval excludes 0 is flagged.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, percentile_interval
from sandbox.analysis.tables import SPEECH_KINDS, days_by_seq, game_name
from sandbox.transcript import EventRow, Transcript


@dataclass(frozen=True)
class Item:
    game: str
    seat: int
    side: str
    won: float
    place: int | None = None  # speaking order on the first day with discussion
    speakers: int = 0  # how many seats spoke that day


def speaking_order(game: Transcript[EventRow]) -> dict[int, int]:
    """seat -> place (1-based) of its first discussion speech on the first day
    that has one; seats that did not speak that day are absent."""
    days = days_by_seq(game)
    first_day: int | None = None
    order: list[int] = []
    for i, event in enumerate(game.events):
        kind = str(event.get("kind"))
        seat = event.get("seat")
        if kind not in SPEECH_KINDS or kind.endswith("last_words") or not isinstance(seat, int):
            continue
        day = int(event["day"]) if isinstance(event.get("day"), int) else days[i]
        if first_day is None:
            first_day = day
        if day != first_day:
            break
        if seat not in order:
            order.append(seat)
    return {seat: k + 1 for k, seat in enumerate(order)}


def items_of(game: Transcript[EventRow]) -> list[Item]:
    """One item per seat of a finished game (see the module text)."""
    if game.outcome is None:
        return []
    places = speaking_order(game)
    return [
        Item(
            game.game_id,
            seat,
            side,
            float(game.results.get(seat) == "win"),
            places.get(seat),
            len(places),
        )
        for seat, side in sorted(game.sides.items())
    ]


def groups_of(item: Item) -> list[str]:
    """The groups an item belongs to: its seat, its place, first or last speaker."""
    found = [f"seat:{item.seat}"]
    if item.place is not None:
        found.append(f"order:{item.place}")
        if item.place == 1:
            found.append("first_speaker")
        if item.place == item.speakers and item.speakers > 1:
            found.append("last_speaker")
    return found


def effects_of(items: Sequence[Item]) -> dict[str, tuple[float, int]]:
    """group -> (mean residual, items); the formula of the module text."""
    by_side: dict[str, list[float]] = {}
    for item in items:
        by_side.setdefault(item.side, []).append(item.won)
    base = {side: sum(w) / len(w) for side, w in by_side.items()}
    sums: dict[str, list[float]] = {}
    for item in items:
        residual = item.won - base[item.side]
        for group in groups_of(item):
            sums.setdefault(group, []).append(residual)
    return {g: (sum(r) / len(r), len(r)) for g, r in sums.items()}


def seat_effects(
    items: Sequence[Item], seed: int = BOOTSTRAP_SEED, samples: int = BOOTSTRAP_SAMPLES
) -> dict[str, dict[str, Any]]:
    """group -> {effect, ci95, items, excludes_zero}: each effect with its
    cluster-bootstrap interval over games (resampled whole)."""
    point = effects_of(items)
    by_game: dict[str, list[Item]] = {}
    for item in items:
        by_game.setdefault(item.game, []).append(item)
    games = [by_game[g] for g in sorted(by_game)]
    rng = random.Random(seed + 3)
    draws: dict[str, list[float]] = {}
    for _ in range(samples if len(games) > 1 else 0):
        sample = [x for _ in games for x in games[rng.randrange(len(games))]]
        for group, (value, _) in effects_of(sample).items():
            draws.setdefault(group, []).append(value)
    out: dict[str, dict[str, Any]] = {}
    for group in sorted(point, key=_order):
        value, n = point[group]
        ci = percentile_interval(draws.get(group, []))
        out[group] = {
            "effect": round(value, 4) + 0.0,
            # + 0.0: a rounded −0.0 prints as 0.0
            "ci95": None if ci is None else [round(ci[0], 4) + 0.0, round(ci[1], 4) + 0.0],
            "items": n,
            "excludes_zero": ci is not None and (ci[0] > 0 or ci[1] < 0),
        }
    return out


def _order(group: str) -> tuple[int, int, str]:
    kind, _, number = group.partition(":")
    rank = {"seat": 0, "order": 1, "first_speaker": 2, "last_speaker": 3}.get(kind, 4)
    return rank, int(number) if number.isdigit() else 0, group


def seating_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any] | None:
    """The seat, speaking-order and first/last-speaker effects of the games, and
    the groups whose interval excludes 0; None without games. Setups differ in
    seats and sides, so pooled setups are measured per setup by the caller."""
    items = [item for game in games for item in items_of(game)]
    if not items:
        return None
    table = seat_effects(items, seed, samples or BOOTSTRAP_SAMPLES)
    return {
        "games": len({i.game for i in items}),
        "effects": table,
        "flagged": [g for g, row in table.items() if row["excludes_zero"]],
    }


def flag_text(summary: Mapping[str, Any] | None) -> str | None:
    """A plain line naming the groups whose effect's interval excludes 0."""
    if not summary or not summary.get("flagged"):
        return None
    parts = [
        f"{g} {summary['effects'][g]['effect']:+.2f} {summary['effects'][g]['ci95']}"
        for g in summary["flagged"]
    ]
    return "seating moved the results (win rate above its side's, 95% CI): " + "; ".join(parts)


def seating_by_setup(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED, samples: int = 0
) -> dict[str, Any]:
    """:func:`seating_summary` per setup ("variant/game name/Np"): seat numbers
    and sides mean different things in different setups, so they never pool."""
    found: dict[str, list[Transcript[EventRow]]] = {}
    for game in games:
        found.setdefault(f"{game.variant}/{game_name(game)}/{len(game.roles)}p", []).append(game)
    return {name: seating_summary(found[name], seed, samples) for name in sorted(found)}
