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


def test_speeches_about_the_game_and_speeches_repeating_the_prompt(tmp_path: Path) -> None:
    """Issue 40 item 5's two figures: a speech naming a seat, a role or an event is
    about the game; one sharing eight words in a row with its own prompt's
    instructions (the record's lines taken out: the referee's and the quoted
    speeches) repeats the instructions; one sharing them with a referee line of
    the record is counted apart."""
    instructions = "Your speech; it ends with pass (empty text passes); at most 160 characters."
    quoted = "I saw seat 2 lie about the night and I will say it again today"
    speeches = {
        1: "I suspect seat 3.",  # a seat
        2: "The killers hide among the civilians.",  # roles of this game
        3: "Who died at dawn?",  # an event
        4: "CIGARADES, NUANGA-NUEBA",  # none of them
        5: "it ends with pass (empty text passes); at most 160 characters",  # the prompt
        6: quoted,  # seat 6's words, then in the later seats' prompts as a quote
        7: "我怀疑3号是杀手",  # a seat, in Chinese
        8: f"Seat 6 said {quoted}",  # quoting a speech is not repeating the prompt
        9: "I think seat 5 may give last words (KG-7) today",  # a referee line
    }
    lines: list[dict[str, Any]] = [
        {"type": "header", "variant": "killer", "seed": 1, "started": "2026-12-02T01:00:00Z",
         "roles": {"1": "killer", "2": "police", "3": "civilian"}},
    ]  # fmt: skip
    for seat, said in speeches.items():
        lines.append(decision(seat, "speech", {"speech": said}))
        record = "⟦REFEREE⟧ Seat 5 may give last words (KG-7).\n"
        record += f'Seat 6 said (speech): "{quoted}"\n' if seat > 6 else ""
        prompt = f"Rules. {instructions}\n{record}Now speak."
        lines.append(
            {"type": "call", "request_id": f"1.{seat}.speech", "repair": 0, "attempt": 1,
             "tokens_in": 10, "cached_tokens": 0,
             "messages": [{"role": "user", "content": prompt}]}
        )  # fmt: skip
    lines.append({"type": "outcome", "reason": "day_limit", "ended": "2026-12-02T01:00:30Z"})
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    figures = bench().game_figures(path)
    assert figures["spoken"] == 9
    assert figures["about"] == 7  # seats 1, 2, 3, 6 (seat 2, the night), 7, 8 and 9; not 4, 5
    assert figures["echoes"] == 1  # seat 5 only
    assert figures["record_echoes"] == 1  # seat 9 only
    line = bench()._figures_line(figures)
    assert "about the game 78%" in line and "repeating the instructions 1" in line
    assert "repeating a referee line 1" in line
