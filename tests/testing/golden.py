"""Golden playthrough files: recording and replaying (shared by every variant).

A file tests/testing/golden/<variant>/<case>.json holds the case's config (the raw
[rules] keys plus "seat"), seed, every decision in order (request id, seat and
payload, or the fallback reason), every event (to_json) and every seat's view
(SeatView.to_json) after each step. Views are stored as deltas per seat:
``private``/``public`` keys only when they changed (``*_set``), and the history items added
since the seat's previous snapshot (``history_added``) — or the whole
``history`` when it was not a pure append — so files stay small while still
pinning every view exactly.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sandbox.agents.simple import RandomAgent
from sandbox.core.events import thaw
from sandbox.core.game import Game
from sandbox.core.seat import decide_now
from sandbox.core.variant import SeatView, Variant
from tests.testing.driver import context

_NO = object()
GOLDEN_DIR = Path(__file__).parent / "golden"


def golden_files(variant: str) -> list[Path]:
    return sorted((GOLDEN_DIR / variant).glob("*.json"))


class ViewTracker:
    """Turns successive full views into deltas, and back."""

    def __init__(self) -> None:
        self.last: dict[int, dict[str, Any]] = {}

    def delta(self, seat: int, view: dict[str, Any]) -> dict[str, Any]:
        prev = self.last.get(seat, {"private": None, "public": None, "history": []})
        out: dict[str, Any] = {}
        for key in ("private", "public"):
            new_map, old_map = view[key], prev[key]
            if new_map == old_map:
                continue
            if (
                isinstance(new_map, dict)
                and isinstance(old_map, dict)
                and set(old_map) <= set(new_map)
            ):
                out[key + "_set"] = {k: v for k, v in new_map.items() if old_map.get(k, _NO) != v}
            else:
                out[key] = new_map
        old, new = prev["history"], view["history"]
        if new[: len(old)] == old:
            if len(new) > len(old):
                out["history_added"] = new[len(old) :]
        else:
            out["history"] = new
        self.last[seat] = view
        return out

    def apply(self, seat: int, delta: dict[str, Any]) -> dict[str, Any]:
        prev = self.last.get(seat, {"private": None, "public": None, "history": []})
        view = {**prev, "history": list(prev["history"])}
        for key in ("private", "public", "history"):
            if key in delta:
                view[key] = delta[key]
            if key + "_set" in delta:
                view[key] = {**view[key], **delta[key + "_set"]}
        view["history"] += delta.get("history_added", [])
        self.last[seat] = view
        return view


def view_json(view: SeatView) -> dict[str, Any]:
    """SeatView.to_json without dataclasses.asdict's deep copies (5x faster);
    the golden test checks it equals to_json on the final views."""
    return {
        "variant": view.variant.name,
        "seat": view.seat,
        "private": thaw(view.private),
        "public": thaw(view.public),
        "history": [
            {
                "seq": h.seq,
                "kind": h.kind,
                "day": h.day,
                "phase": h.phase,
                "speaker": h.speaker,
                "speech": h.speech,
                "facts": thaw(h.facts),
                "public": h.public,
            }
            for h in view.history
        ],
    }


def snapshot(game: Game, tracker: ViewTracker) -> dict[str, Any]:
    views = {}
    for seat in game.seats:
        full = view_json(game.view(seat))
        views[str(seat)] = tracker.delta(seat, full)
        views[str(seat)]["_meta"] = {k: full[k] for k in ("variant", "seat")}
    return {"step": game.step, "over": game.over, "views": views}


def record(variant: Variant[Any], raw_config: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play a case with seeded random seats and record everything."""
    game = Game.new(variant, variant.parse_config(raw_config), seed)
    rng = random.Random(seed)
    agents = {s: RandomAgent(rng.getrandbits(32)) for s in game.seats}
    tracker = ViewTracker()
    decisions: list[dict[str, Any]] = []
    snapshots = [snapshot(game, tracker)]
    while not game.over:
        for request in game.pending():
            answer = decide_now(agents[request.seat], context(game, request.id))
            entry: dict[str, Any] = {"request_id": request.id, "seat": request.seat}
            step = game.step
            if answer.payload is None:
                entry["fallback"] = answer.fallback_reason or "invalid"
                game.submit_fallback(request.id, entry["fallback"])
            else:
                entry["payload"] = json.loads(json.dumps(answer.payload))
                game.submit(request.id, answer.payload)
            decisions.append(entry)
            if game.step != step or game.over:
                snapshots.append(snapshot(game, tracker))
    return {
        "variant": variant.name,
        "config": raw_config,
        "seed": seed,
        "decisions": decisions,
        "events": [e.to_json() for e in game.events],
        "snapshots": snapshots,
    }


def write(path: Path, case: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case, ensure_ascii=False, separators=(",", ":")) + "\n")
