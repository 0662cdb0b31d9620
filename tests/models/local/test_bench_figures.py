"""The figures ``bench/bench_local.py compare`` prints (formulas in
docs/local-model.md), from a hand-built transcript with known answers."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_local.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_local", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decision(
    seat: int, kind: str, payload: dict[str, Any] | None, reason: str = ""
) -> dict[str, Any]:
    data = {
        "seat": seat, "request_id": f"1.{seat}.{kind}", "decision": kind, "payload": payload,
        "note": "", "fallback": bool(reason), "fallback_reason": reason,
    }  # fmt: skip
    return {"type": "event", "kind": "core.decision", "data": data}


def call(repair: int, tokens_in: int, cached: int) -> dict[str, Any]:
    return {"type": "call", "repair": repair, "tokens_in": tokens_in, "cached_tokens": cached}


def test_compare_figures_from_a_hand_built_transcript(tmp_path: Path) -> None:
    lines = [
        {"type": "header", "variant": "killer", "seed": 1, "started": "2026-12-02T01:00:00Z"},
        decision(1, "speech", {"speech": "I suspect seat 3."}),
        decision(2, "last_words", {"speech": ""}, reason="invalid"),  # empty, and a fallback
        decision(3, "speech", {"speech": "  "}),  # blank counts as empty
        decision(4, "vote", {"target": 2}),
        call(0, 1000, 900),
        call(0, 800, 0),
        call(1, 800, 600),  # the one repair turn
        call(0, 400, 300),
        call(0, 1000, 1000),
        {"type": "outcome", "reason": "day_limit", "ended": "2026-12-02T01:00:30Z"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    figures = bench().game_figures(path)
    assert figures["decisions"] == 4 and figures["calls"] == 5
    assert figures["invalid"] == 1 and figures["fallbacks"] == 1
    assert figures["repairs"] == 1  # repair share 1/5
    assert (figures["prompt"], figures["cached"]) == (4000, 2800)  # cached share 70%
    assert (figures["prompt_first"], figures["cached_first"]) == (3200, 2200)  # 68.75%
    assert figures["wall"] == 30.0  # 7.5 s per decision
    assert (figures["speeches"], figures["spoken"]) == (3, 1)
    line = bench()._figures_line(figures)
    assert "invalid fallbacks 1" in line and "repair share 20.0%" in line
    assert "cached share 70.0% (first attempts 68.8%)" in line and "7.50 s per decision" in line
    assert "non-empty speeches 1/3" in line
