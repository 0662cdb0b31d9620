"""Tidy rows (one dict per item) for games, seats, decisions, calls and beliefs.

Column meanings: docs/studies.md, "Tidy data". Every row carries ``game_id``
(the game's identity, else the file name), ``study`` and ``cell``; seat-level
rows carry ``seat``, ``side`` and ``contestant``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from sandbox.analysis.load import RawGame, agent_label

Row = dict[str, Any]


def _base(game: RawGame) -> Row:
    study = game.study
    return {
        "game_id": game.game_id,
        "study": study.get("name"),
        "cell": study.get("cell"),
    }


def game_name(game: RawGame) -> str:
    """The game file's name, else the variant (for grouping setups)."""
    name = game.header.get("name") or (game.header.get("config") or {}).get("name")
    return str(name or game.variant)


def winning_sides(game: RawGame) -> list[str]:
    sides = game.sides
    return sorted({sides[s] for s, r in game.results.items() if r == "win" and s in sides})


def game_row(game: RawGame) -> Row:
    outcome = game.outcome or {}
    calls = game.calls
    return {
        **_base(game),
        "path": str(game.path),
        "variant": game.variant,
        "game_name": game_name(game),
        "players": len(game.roles),
        "seed": game.header.get("seed"),
        "finished": game.outcome is not None,
        "reason": outcome.get("reason"),
        "winner": "+".join(winning_sides(game)) or "draw",
        "days": last_day(game),
        "decisions": len(game.of_kind("core.decision")),
        "calls": len(calls),
        "tokens_in": sum(int(c.get("tokens_in") or 0) for c in calls),
        "tokens_out": sum(int(c.get("tokens_out") or 0) for c in calls),
        "cost": sum(float(c.get("cost") or 0.0) for c in calls),
        "started": game.header.get("started"),
    }


def last_day(game: RawGame) -> int:
    days = [int(e["day"]) for e in game.events if isinstance(e.get("day"), int)]
    return max(days, default=0)


def seat_rows(game: RawGame) -> list[Row]:
    sides, who, agents, results = game.sides, game.contestants, game.agents, game.results
    decisions = game.of_kind("core.decision")
    dead = dead_seats(game)
    rows: list[Row] = []
    for seat, role in sorted(game.roles.items()):
        mine = [d for d in decisions if d.get("seat") == seat]
        calls = [c for c in game.calls if c.get("seat") == seat]
        rows.append(
            {
                **_base(game),
                "variant": game.variant,
                "seat": seat,
                "role": role,
                "side": sides[seat],
                "contestant": who.get(seat, "?"),
                "agent": agent_label(agents.get(seat, {})),
                "result": results.get(seat),
                "won": results.get(seat) == "win",
                "survived": seat not in dead,
                "decisions": len(mine),
                "fallbacks": sum(1 for d in mine if d.get("fallback")),
                "repairs": sum(1 for c in calls if int(c.get("repair") or 0) > 0),
                "calls": len(calls),
                "tokens_in": sum(int(c.get("tokens_in") or 0) for c in calls),
                "tokens_out": sum(int(c.get("tokens_out") or 0) for c in calls),
                "cost": sum(float(c.get("cost") or 0.0) for c in calls),
            }
        )
    return rows


def dead_seats(game: RawGame) -> set[int]:
    """Seats that died: Killer victims and voted-out seats, FF corpses."""
    dead = {int(e["victim"]) for e in game.of_kind("killer.dawn") if e.get("victim") is not None}
    dead |= {int(e["seat"]) for e in game.of_kind("killer.voted_out")}
    dead |= {int(e["target"]) for e in game.of_kind("ff.corpse")}
    return dead


def decision_rows(game: RawGame) -> list[Row]:
    sides, who = game.sides, game.contestants
    return [
        {
            **_base(game),
            "seq": e.get("seq"),
            "seat": e.get("seat"),
            "side": sides.get(int(e.get("seat") or 0)),
            "contestant": who.get(int(e.get("seat") or 0)),
            "request_id": e.get("request_id"),
            "decision": e.get("decision"),
            "fallback": bool(e.get("fallback")),
            "fallback_reason": e.get("fallback_reason") or "",
            "payload": json.dumps(e.get("payload"), ensure_ascii=False, sort_keys=True),
        }
        for e in game.of_kind("core.decision")
    ]


def call_rows(game: RawGame) -> list[Row]:
    """One row per model call; ``first_call`` marks each model's first call of the
    game (server start-up, cold caches), left out of the latency figures."""
    sides, who = game.sides, game.contestants
    seen_models: set[str] = set()
    rows: list[Row] = []
    for c in game.calls:
        seat = int(c.get("seat") or 0)
        model = str(c.get("model"))
        rows.append(
            {
                **_base(game),
                "seat": seat,
                "side": sides.get(seat),
                "contestant": who.get(seat),
                "request_id": c.get("request_id"),
                "decision": c.get("decision"),
                "model": model,
                "attempt": c.get("attempt"),
                "repair": int(c.get("repair") or 0),
                "tokens_in": int(c.get("tokens_in") or 0),
                "tokens_out": int(c.get("tokens_out") or 0),
                "cost": float(c.get("cost") or 0.0),
                "latency_s": _latency(c),
                "error": c.get("error"),
                "first_call": model not in seen_models,
            }
        )
        seen_models.add(model)
    return rows


def _latency(call: dict[str, Any]) -> float | None:
    if isinstance(call.get("latency_s"), int | float):
        return float(call["latency_s"])
    if isinstance(call.get("latency_ms"), int | float):
        return float(call["latency_ms"]) / 1000
    return None


def belief_rows(game: RawGame) -> list[Row]:
    """One row per (probe, target seat): the side said (most likely, or
    'unknown'), its probability, the probability of the truth and the Brier
    score (see read_belief)."""
    roles, who = game.roles, game.contestants
    from sandbox.study.sides import role_group

    truth = {s: role_group(r) for s, r in roles.items()}
    day_of = request_days(game)
    rows: list[Row] = []
    for c in game.calls:
        beliefs = c.get("beliefs")
        if not isinstance(beliefs, dict):
            continue
        seat = int(c.get("seat") or 0)
        for target, said in beliefs.items():
            if not str(target).isdigit() or int(target) not in truth:
                continue
            true_side = truth[int(target)]
            label, p_label, p_true, brier = read_belief(said, true_side)
            rows.append(
                {
                    **_base(game),
                    "seat": seat,
                    "contestant": who.get(seat),
                    "request_id": c.get("request_id"),
                    "day": day_of.get(str(c.get("request_id")), 0),
                    "target": int(target),
                    "truth": true_side,
                    "said": label,
                    "p_said": p_label,
                    "p_true": p_true,
                    "brier": brier,
                }
            )
    return rows


def read_belief(said: Any, truth: str) -> tuple[str, float | None, float | None, float | None]:
    """(most likely label, its probability, probability of the truth, Brier score)
    from a plain label (probability 1) or a distribution ``{"killer": 0.7, ...}``
    (normalised to sum 1). Brier = sum over labels of (p_label - [label is true])²;
    'unknown' or an empty distribution gives no probabilities."""
    if isinstance(said, dict):
        probs = {str(k): float(v) for k, v in said.items() if isinstance(v, int | float) and v >= 0}
        total = sum(probs.values())
        if not total:
            return "unknown", None, None, None
        probs = {k: v / total for k, v in probs.items()}
    elif str(said) == "unknown":
        return "unknown", None, None, None
    else:
        probs = {str(said): 1.0}
    label = max(sorted(probs), key=lambda k: probs[k])
    brier = sum((v - (k == truth)) ** 2 for k, v in probs.items())
    brier += 0.0 if truth in probs else 1.0
    return label, probs[label], probs.get(truth, 0.0), brier


def request_days(game: RawGame) -> dict[str, int]:
    """request_id -> the day the decision was made (the last day seen before it)."""
    days: dict[str, int] = {}
    day = 0
    for e in game.events:
        if isinstance(e.get("day"), int):
            day = int(e["day"])
        if e.get("kind") == "core.decision":
            days[str(e.get("request_id"))] = day
    return days


def rows_of(games: Iterable[RawGame], table: str) -> list[Row]:
    makers = {
        "games": lambda g: [game_row(g)],
        "seats": seat_rows,
        "decisions": decision_rows,
        "calls": call_rows,
        "beliefs": belief_rows,
    }
    make = makers[table]
    return [row for game in games for row in make(game)]


TABLES: Sequence[str] = ("games", "seats", "decisions", "calls", "beliefs")
