"""The line models of a transcript (docs/transcript.md, "Lines"), and the one
error every reader raises.

Each line type has a pydantic model that checks its required fields; lines may
carry more keys than a model names (a study's cell, a call's prompt), which are
kept. Older files wrote some fields differently: :func:`latency_of` reads both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1


class TranscriptError(Exception):
    """A transcript that cannot be read (wrong schema, not a transcript, empty)."""


class LineModel(BaseModel):
    """What every line model shares: unknown keys are kept, and lines are read-only."""

    model_config = ConfigDict(extra="allow", frozen=True)


class TranscriptHeader(LineModel):
    """Line 1: what was played, by whom (roles and agents are referee-only facts)."""

    type: str = "header"
    schema_: int = Field(alias="schema")
    variant: str
    seed: int = Field(ge=0)
    name: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    game_config: dict[str, Any] | None = None
    roles: dict[int, str]
    agents: dict[int, dict[str, Any]] = Field(default_factory=dict)
    sandbox_version: str | None = None
    started: str | None = None


class EventLine(LineModel):
    """An engine event with its sequence number and who could see it."""

    type: str = "event"
    seq: int = Field(ge=0)
    kind: str
    data: dict[str, Any]
    vis: str | list[int]


class CallRecord(LineModel):
    """One HTTP attempt of a model seat (referee-only)."""

    type: str = "call"
    seat: int
    request_id: str
    decision: str | None = None
    model: str | None = None
    attempt: int | None = None
    repair: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    latency_ms: float | None = None
    raw: str | None = None
    error: str | None = None


class OutcomeRecord(LineModel):
    """The last line: how the game ended and the run's counters."""

    type: str = "outcome"
    reason: str
    results: dict[int, str]
    summary: str = ""
    stats: dict[str, Any] = Field(default_factory=dict)
    ended: str | None = None


class ControlLine(LineModel):
    """A seat changing hands mid-game (a host's take-over or hand-back)."""

    type: str = "control"
    seq: int = Field(ge=0)
    seat: int
    request_id: str | None = None
    to: dict[str, Any] = Field(default_factory=dict)


# Every line after the header, by its ``type``.
LINE_MODELS: dict[str, type[LineModel]] = {
    "event": EventLine,
    "call": CallRecord,
    "control": ControlLine,
    "outcome": OutcomeRecord,
}


def latency_of(call: Mapping[str, Any]) -> float | None:
    """A call line's latency in seconds, from ``latency_s`` or, as the model
    client writes it, ``latency_ms``; None when the line has neither."""
    if isinstance(call.get("latency_s"), int | float):
        return float(call["latency_s"])
    if isinstance(call.get("latency_ms"), int | float):
        return float(call["latency_ms"]) / 1000
    return None
