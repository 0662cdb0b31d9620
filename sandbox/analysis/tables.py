"""Tidy rows (one dict per item) for games, seats, decisions, calls, beliefs and
persuasion per speech.

Column meanings: docs/study-reference.md, "Tidy data". Every row carries ``game_id``
(the game's identity, else the file name), ``study`` and ``cell``; seat-level
rows carry ``seat``, ``side`` and ``contestant``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sandbox.analysis.open_days import seat_day_rows
from sandbox.games import registry
from sandbox.transcript import EventRow, Transcript, agent_label, latency_of

Row = dict[str, Any]


def _base(game: Transcript[EventRow]) -> Row:
    study = game.study
    return {
        "game_id": game.game_id,
        "study": study.get("name"),
        "cell": study.get("cell"),
    }


def game_name(game: Transcript[EventRow]) -> str:
    """The game file's name, else the variant (for grouping setups)."""
    return setup_name(game.header)


def setup_name(header: Mapping[str, Any]) -> str:
    """:func:`game_name` from a transcript header."""
    name = header.get("name") or (header.get("config") or {}).get("name")
    return str(name or header.get("variant"))


def winning_sides(game: Transcript[EventRow]) -> list[str]:
    sides = game.sides
    return sorted({sides[s] for s, r in game.results.items() if r == "win" and s in sides})


def game_row(game: Transcript[EventRow]) -> Row:
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


def last_day(game: Transcript[EventRow]) -> int:
    days = [int(e["day"]) for e in game.events if isinstance(e.get("day"), int)]
    return max(days, default=0)


def seat_rows(game: Transcript[EventRow]) -> list[Row]:
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
                # a remote seat's lost connections (sandbox.web.remote's link lines)
                "disconnects": sum(1 for c in calls if c.get("link") == "disconnected"),
                "calls": len(calls),
                "tokens_in": sum(int(c.get("tokens_in") or 0) for c in calls),
                "tokens_out": sum(int(c.get("tokens_out") or 0) for c in calls),
                "cost": sum(float(c.get("cost") or 0.0) for c in calls),
            }
        )
    return rows


def dead_seats(game: Transcript[EventRow]) -> set[int]:
    """Seats that died, read from the events the variant declares as deaths
    (``VariantInfo.death_fields``: e.g. a night victim, a seat voted out)."""
    variant = registry.find_variant(game.variant)
    if variant is None:
        return set()
    return {
        int(e[field])
        for kind, field in variant.info.death_fields.items()
        for e in game.of_kind(kind)
        if e.get(field) is not None
    }


def decision_rows(game: Transcript[EventRow]) -> list[Row]:
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


def call_rows(game: Transcript[EventRow]) -> list[Row]:
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
                "latency_s": latency_of(c),
                "error": c.get("error"),
                "link": c.get("link"),  # a remote seat's disconnect or reconnect, else null
                "first_call": model not in seen_models,
            }
        )
        seen_models.add(model)
    return rows


def belief_rows(game: Transcript[EventRow]) -> list[Row]:
    """One row per (probe, target seat): where the probe sits (``seq``: it saw
    events 0..seq-1), the side said (most likely, or 'unknown'), the whole
    distribution, the probability of the truth, the Brier score and log loss
    (see read_belief). A decision's probe whose decision is not in the file (a
    torn game) has no ``seq`` (None) and counts as day 0."""
    roles, who = game.roles, game.contestants
    from sandbox.transcript.sides import role_group

    truth = {s: role_group(r) for s, r in roles.items()}
    seq_of = {str(e.get("request_id")): int(e["seq"]) for e in game.of_kind("core.decision")}
    day_at = days_by_seq(game)
    rows: list[Row] = []
    for c in game.calls:
        beliefs = c.get("beliefs")
        if not isinstance(beliefs, dict):
            continue
        after_speech = bool(c.get("probe"))
        seq = c.get("seq") if after_speech else seq_of.get(str(c.get("request_id")))
        seq = seq if isinstance(seq, int) else None
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
                    "probe": "after_speech" if after_speech else "decision",
                    "seq": seq,
                    "day": 0 if seq is None else day_at[min(seq, len(day_at) - 1)],
                    "target": int(target),
                    "truth": true_side,
                    "said": label,
                    "p_said": p_label,
                    "p_true": p_true,
                    "brier": brier,
                    "log_loss": log_loss(p_true),
                    "distribution": json.dumps(distribution_of(said), sort_keys=True),
                }
            )
    return rows


# Log loss of a probability 0 is infinite; a certain wrong guess is charged
# -ln(LOG_LOSS_FLOOR) (about 6.9) instead, so a plain wrong label stays finite.
LOG_LOSS_FLOOR = 0.001


def log_loss(p_true: float | None) -> float | None:
    """-ln(p_true), with p_true floored at LOG_LOSS_FLOOR; None without one."""
    return None if p_true is None else -math.log(max(p_true, LOG_LOSS_FLOOR))


def distribution_of(said: Any) -> dict[str, float]:
    """A guess as {label: probability}: a label is probability 1 (the old label
    probe), 'unknown' is no distribution, a distribution is normalised."""
    if isinstance(said, dict):
        probs = {str(k): float(v) for k, v in said.items() if isinstance(v, int | float) and v >= 0}
        total = sum(probs.values())
        return {k: round(v / total, 6) for k, v in probs.items()} if total else {}
    return {} if str(said) == "unknown" else {str(said): 1.0}


def days_by_seq(game: Transcript[EventRow]) -> list[int]:
    """The day at each event position: the last day announced before it (0
    before day 1); one entry more than there are events (the end)."""
    days, day = [], 0
    for e in game.events:
        days.append(day)
        if isinstance(e.get("day"), int):
            day = int(e["day"])
    days.append(day)
    return days


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


# Public speech events (the same set as sandbox.agents.llm.beliefs.SPEECH_KINDS,
# the events after which probe_after_speech asks): every registered variant's
# VariantInfo.speech_kinds, read from the registry when used.
SPEECH_KINDS = registry.SPEECH_KINDS
# Events that may sit inside a speech's window without spoiling it: the
# decision and step bookkeeping and phase markers tell no one anything new.
QUIET_KINDS = ("core.decision", "core.step")

Probes = list[tuple[int, dict[int, float]]]


def probe_series(game: Transcript[EventRow]) -> dict[int, Probes]:
    """seat -> [(seq, {target: p_true})] in game order, every probe of the
    seat (with its decisions and after speeches); 'unknown' targets left out."""
    found: dict[tuple[int, int], dict[int, float]] = {}
    for row in belief_rows(game):
        if row["p_true"] is not None and row["seq"] is not None:
            found.setdefault((row["seat"], row["seq"]), {})[row["target"]] = float(row["p_true"])
    out: dict[int, Probes] = {}
    for (seat, seq), beliefs in sorted(found.items(), key=lambda kv: kv[0][1]):
        out.setdefault(seat, []).append((seq, beliefs))
    return out


def speech_persuasion_rows(game: Transcript[EventRow]) -> list[Row]:
    """One row per (speech, listener) with a probe right before and right after
    the speech (docs/study-reference.md, "Persuasion per speech"): the listener's last
    probe at or before the speech's seq and its first probe after it, with no
    other event the listener could see in between (bookkeeping and phase
    markers aside). ``delta`` = mean over the targets probed both times of
    (p_true after - p_true before); ``delta_about_speaker`` the same for the
    speaker alone (when probed both times)."""
    series = probe_series(game)
    sides, who = game.sides, game.contestants
    day_at = days_by_seq(game)
    rows: list[Row] = []
    for index, speech in enumerate(game.events):
        if speech.get("kind") not in SPEECH_KINDS or not isinstance(speech.get("seat"), int):
            continue
        speaker = int(speech["seat"])
        for listener, probes in series.items():
            pair = _around(probes, index)
            if listener == speaker or pair is None:
                continue
            (start, before), (end, after) = pair
            common = sorted(t for t in before if t in after)
            if not common or not _quiet(game, listener, start, end, index):
                continue
            about = after[speaker] - before[speaker] if speaker in common else None
            rows.append(
                {
                    **_base(game),
                    "speech_seq": index,
                    "day": day_at[index],
                    "kind": speech.get("kind"),
                    "speaker": speaker,
                    "speaker_contestant": who.get(speaker),
                    "speaker_side": sides.get(speaker),
                    "listener": listener,
                    "listener_contestant": who.get(listener),
                    "listener_side": sides.get(listener),
                    "before_seq": start,
                    "after_seq": end,
                    "targets": len(common),
                    "delta": sum(after[t] - before[t] for t in common) / len(common),
                    "delta_about_speaker": about,
                }
            )
    return rows


def _around(
    probes: Probes, index: int
) -> tuple[tuple[int, dict[int, float]], tuple[int, dict[int, float]]] | None:
    """The last probe that had not seen event ``index`` (seq <= index) and the
    first that had (seq > index), if both exist."""
    before = [p for p in probes if p[0] <= index]
    after = [p for p in probes if p[0] > index]
    return (before[-1], after[0]) if before and after else None


def _quiet(game: Transcript[EventRow], listener: int, start: int, end: int, speech: int) -> bool:
    """No event but the speech in [start, end) told the listener anything."""
    for i in range(start, min(end, len(game.events))):
        kind = str(game.events[i].get("kind"))
        if i == speech or kind in QUIET_KINDS or kind.endswith(".phase"):
            continue
        if game.seen_by(i, listener):
            return False
    return True


def discussion_rows(game: Transcript[EventRow]) -> list[Row]:
    """Issue 42: one row per (open day, seat living at its start); the figures
    and their formulas: sandbox.analysis.open_days, docs/study-reference.md."""
    return [{**_base(game), **row} for row in seat_day_rows(game)]


def rows_of(games: Iterable[Transcript[EventRow]], table: str) -> list[Row]:
    makers = {
        "games": lambda g: [game_row(g)],
        "seats": seat_rows,
        "decisions": decision_rows,
        "calls": call_rows,
        "beliefs": belief_rows,
        "persuasion": speech_persuasion_rows,
        "discussion": discussion_rows,
    }
    make = makers[table]
    return [row for game in games for row in make(game)]


TABLES: Sequence[str] = (
    "games",
    "seats",
    "decisions",
    "calls",
    "beliefs",
    "persuasion",
    "discussion",
)
