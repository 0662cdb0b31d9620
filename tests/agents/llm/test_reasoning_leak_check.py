"""The leak check the reasoning games rely on (``reasoning_leaks``), on
hand-built transcripts: a clean one passes, and reasoning copied into a public
event, a seat's private event, another seat's prompt or an answer is caught."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.llm.test_reasoning_games import reasoning_leaks
from tests.analysis.builders import write_transcript

THOUGHT = "THOUGHT-hand-00001: seat 3 hesitated, so seat 3 is the killer"
ROLES = {1: "killer", 2: "killer", 3: "police", 4: "police"} | {s: "civilian" for s in range(5, 12)}
WHO = {s: "m" for s in ROLES}


def call(seat: int, content: str = "the record so far", **more: Any) -> dict[str, Any]:
    return {
        "type": "call",
        "seat": seat,
        "request_id": f"1.{seat}.vote",
        "decision": "vote",
        "messages": [{"role": "user", "content": content}],
        "raw": '{"target": 3}',
        "parsed": {"target": 3},
        **more,
    }


def speech(text: str) -> tuple[str, dict[str, Any]]:
    data = {"day": 1, "seat": 1, "text": text, "context": "day", "claim": "none"}
    return ("killer.speech", {**data, "accuse": [], "vouch": []})


def written(
    tmp_path: Path, events: list[tuple[str, dict[str, Any]]], calls: list[dict[str, Any]]
) -> Path:
    path = write_transcript(tmp_path / "t.jsonl", "killer", ROLES, WHO, events, None, calls=calls)
    return path


def test_reasoning_only_on_call_lines_is_no_leak(tmp_path: Path) -> None:
    path = written(tmp_path, [speech("hello")], [call(1, reasoning=THOUGHT), call(2)])
    assert reasoning_leaks(path) == []


@pytest.mark.parametrize(
    ("events", "calls", "where"),
    [
        # said aloud: a public speech
        ([speech(THOUGHT)], [call(1, reasoning=THOUGHT)], "event"),
        # another seat's prompt
        ([speech("hi")], [call(1, reasoning=THOUGHT), call(2, content=f"x {THOUGHT} y")], "call"),
        # the seat's own answer text
        ([speech("hi")], [call(1, reasoning=THOUGHT, raw=json.dumps({"n": THOUGHT}))], "call"),
    ],
)
def test_reasoning_outside_the_call_lines_is_caught(
    tmp_path: Path,
    events: list[tuple[str, dict[str, Any]]],
    calls: list[dict[str, Any]],
    where: str,
) -> None:
    found = reasoning_leaks(written(tmp_path, events, calls))
    assert found and all(where in f or "view" in f for f in found)


def test_reasoning_in_a_private_decision_note_reaches_that_seats_view(tmp_path: Path) -> None:
    note = {
        "seat": 3,
        "request_id": "1.3.vote",
        "decision": "vote",
        "payload": {"target": 1},
        "note": THOUGHT,
        "fallback": False,
        "fallback_reason": "",
    }
    path = written(tmp_path, [("core.decision", note)], [call(3, reasoning=THOUGHT)])
    found = reasoning_leaks(path)
    assert any("event" in f for f in found)
