"""The model calls of a transcript as the viewer shows them under their
decisions (referee only): usage in a line, the belief probe marked against the
truth, the full exchange."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.agents.llm.beliefs import UNKNOWN
from sandbox.transcript import Transcript, latency_of


@dataclass(frozen=True)
class CallLine:
    """One model call under its decision (referee only): usage in a line, the
    belief probe marked against the truth, and the full exchange for the viewer."""

    summary: str
    beliefs: str | None = None
    seat: int | None = None
    model: str = ""
    attempt: int | None = None
    repair: int = 0
    messages: tuple[tuple[str, str], ...] = ()  # (role, content)
    raw: str = ""
    reasoning: str = ""
    error: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    latency_s: float | None = None


# ------------------------------------------------------------- model calls


def calls_by_request(transcript: Transcript, language: str) -> dict[str, list[CallLine]]:
    sides = true_sides(transcript)
    out: dict[str, list[CallLine]] = {}
    for call in transcript.calls:
        out.setdefault(str(call.get("request_id")), []).append(call_line(call, sides))
    return out


def call_line(call: Mapping[str, Any], sides: Mapping[str, str]) -> CallLine:
    messages = tuple(
        (str(m.get("role", "")), str(m.get("content", "")))
        for m in call.get("messages") or ()
        if isinstance(m, Mapping)
    )
    raw = call.get("raw")
    return CallLine(
        summary=call_summary(call),
        beliefs=beliefs_text(call, sides),
        seat=call.get("seat") if isinstance(call.get("seat"), int) else None,
        model=str(call.get("model") or ""),
        attempt=call.get("attempt") if isinstance(call.get("attempt"), int) else None,
        repair=int(call.get("repair") or 0),
        messages=messages,
        raw="" if raw is None else str(raw),
        reasoning=_reasoning(raw),
        error=str(call.get("error") or ""),
        tokens_in=call.get("tokens_in"),
        tokens_out=call.get("tokens_out"),
        cost=float(call["cost"]) if isinstance(call.get("cost"), int | float) else None,
        latency_s=latency_of(call),
    )


def _reasoning(raw: object) -> str:
    """The model's private reasoning, when its answer is JSON with a reasoning field."""
    if not isinstance(raw, str):
        return ""
    try:
        parsed = json.loads(raw)
    except ValueError:
        return ""
    value = parsed.get("reasoning") if isinstance(parsed, dict) else None
    return value if isinstance(value, str) else ""


def true_sides(transcript: Transcript) -> dict[str, str]:
    """seat -> its side, the role label up to '/' ('wolves' for 'wolves/elite')."""
    roles = transcript.header.get("roles") or {}
    return {str(seat): str(role).split("/", 1)[0] for seat, role in roles.items()}


def beliefs_text(call: Mapping[str, Any], sides: Mapping[str, str]) -> str | None:
    """``2→killer ✓, 6→police ✗, 7→unknown``: each guess, marked against the truth
    (an "unknown" is no guess and gets no mark); a dropped probe says why."""
    beliefs = call.get("beliefs")
    parts = []
    if isinstance(beliefs, Mapping):
        parts = [_guess_text(str(seat), side, sides) for seat, side in beliefs.items()]
    if call.get("beliefs_error"):
        parts.append(f"dropped: {call['beliefs_error']}")
    return ", ".join(parts) if parts else None


def _guess_text(seat: str, guess: Any, sides: Mapping[str, str]) -> str:
    """A label as it is; a distribution as its most likely side and that
    side's probability (``2→killer 0.62 ✓``)."""
    said, shown = str(guess), str(guess)
    if isinstance(guess, Mapping) and guess:
        said = max(sorted(guess), key=lambda label: float(guess[label]))
        shown = f"{said} {float(guess[said]):.2f}"
    truth = sides.get(seat)
    if said == UNKNOWN or truth is None:
        return f"{seat}→{shown}"
    return f"{seat}→{shown} {'✓' if said == truth else '✗'}"


def call_summary(call: Mapping[str, Any]) -> str:
    parts = [str(call.get("model") or "model")]
    if call.get("repair"):
        parts.append(f"repair {call['repair']}")
    if call.get("tokens_in") is not None or call.get("tokens_out") is not None:
        parts.append(f"{call.get('tokens_in') or 0}→{call.get('tokens_out') or 0} tok")
    latency = latency_of(call)
    if latency is not None:
        parts.append(f"{latency:.2f}s")
    if call.get("cost"):
        parts.append(f"${float(call['cost']):.5f}")
    for key in ("status", "error", "outcome"):
        if call.get(key):
            parts.append(f"{key}: {call[key]}")
    return " · ".join(parts)
