"""The columns of every exported table and their types: one fixed schema per
table, whatever the games hold, so an empty table still has its columns
(Parquet and CSV) and two exports concatenate (HF ``datasets``, DuckDB,
pandas) without a column typed null in one and text in the other.

A type is a name: ``str``, ``int``, ``float``, ``bool``; ``messages`` (a list
of ``{"role", "content"}`` records, TRL's conversational format); ``seats``
(a list of ``{"seat", "role", "side", "result", "reward"}`` records). Every
column may hold nulls.

Adding a table: its row maker in ``sandbox.analysis.tables`` (``rows_of``,
``TABLES``) and its columns here, in ``COLUMNS``; tests/analysis check that
every exported table has them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Columns = Mapping[str, str]

_BASE = {"game_id": "str", "study": "str", "cell": "str"}
_USAGE = {"calls": "int", "tokens_in": "int", "tokens_out": "int", "cost": "float"}

COLUMNS: dict[str, Columns] = {
    "games": {
        **_BASE,
        "path": "str",
        "variant": "str",
        "game_name": "str",
        "players": "int",
        "seed": "int",
        "finished": "bool",
        "reason": "str",
        "winner": "str",
        "days": "int",
        "decisions": "int",
        **_USAGE,
        "started": "str",
    },
    "seats": {
        **_BASE,
        "variant": "str",
        "seat": "int",
        "role": "str",
        "side": "str",
        "contestant": "str",
        "agent": "str",
        "result": "str",
        "won": "bool",
        "survived": "bool",
        "decisions": "int",
        "fallbacks": "int",
        "repairs": "int",
        "disconnects": "int",
        **_USAGE,
    },
    "decisions": {
        **_BASE,
        "seq": "int",
        "seat": "int",
        "side": "str",
        "contestant": "str",
        "request_id": "str",
        "decision": "str",
        "fallback": "bool",
        "fallback_reason": "str",
        "payload": "str",
    },
    "calls": {
        **_BASE,
        "seat": "int",
        "side": "str",
        "contestant": "str",
        "request_id": "str",
        "decision": "str",
        "model": "str",
        "attempt": "int",
        "repair": "int",
        "tokens_in": "int",
        "tokens_out": "int",
        "cost": "float",
        "latency_s": "float",
        "error": "str",
        "link": "str",
        "first_call": "bool",
    },
    "beliefs": {
        **_BASE,
        "seat": "int",
        "contestant": "str",
        "request_id": "str",
        "probe": "str",
        "seq": "int",
        "day": "int",
        "target": "int",
        "truth": "str",
        "said": "str",
        "p_said": "float",
        "p_true": "float",
        "brier": "float",
        "log_loss": "float",
        "distribution": "str",
    },
    "persuasion": {
        **_BASE,
        "speech_seq": "int",
        "day": "int",
        "kind": "str",
        "speaker": "int",
        "speaker_contestant": "str",
        "speaker_side": "str",
        "listener": "int",
        "listener_contestant": "str",
        "listener_side": "str",
        "before_seq": "int",
        "after_seq": "int",
        "targets": "int",
        "delta": "float",
        "delta_about_speaker": "float",
    },
    # issue 42: one row per (open day, seat living at its start), open_days.py
    "discussion": {
        **_BASE,
        "variant": "str",
        "day": "int",
        "seat": "int",
        "side": "str",
        "contestant": "str",
        "messages": "int",
        "replies": "int",
        "first_round": "int",
        "first_position": "int",
        "silent": "bool",
        "rounds": "int",
        "day_messages": "int",
    },
    # Training data (sandbox.analysis.trajectories): one row per decision...
    "trajectories": {
        "game_id": "str",
        "step": "int",
        "seq": "int",
        "seat": "int",
        "role": "str",
        "side": "str",
        "contestant": "str",
        "request_id": "str",
        "decision": "str",
        "observation": "str",
        "messages": "messages",
        "prompt": "messages",
        "completion": "messages",
        "answer": "str",
        "valid": "bool",
        "validity": "float",
        "fallback_reason": "str",
        "referee_error": "str",
        "repairs": "int",
        "disconnects": "int",
        "note": "str",
        "result": "str",
        "reward": "float",
        "seats": "seats",
    },
    # ... and one per game.
    "trajectory_games": {
        "game_id": "str",
        "path": "str",
        "variant": "str",
        "seed": "int",
        "players": "int",
        "seats": "seats",
        "outcome": "str",
        "summary": "str",
        "decisions": "int",
    },
}

_SCALARS = {"str": str, "int": int, "float": float, "bool": bool}
MESSAGE_KEYS = ("role", "content")
SEAT_KEYS = {"seat": "int", "role": "str", "side": "str", "result": "str", "reward": "float"}


def columns_for(table: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The table's declared columns, then any column its rows hold beyond
    them (typed as text); an undeclared table's columns are its rows' keys."""
    declared = dict(COLUMNS.get(table, {}))
    for row in rows:
        for key in row:
            declared.setdefault(key, "str")
    return declared


def typed(value: Any, kind: str) -> Any:
    """``value`` as a column of ``kind`` holds it (None stays None)."""
    if value is None:
        return None
    if kind == "messages":
        return [{k: str(m.get(k) or "") for k in MESSAGE_KEYS} for m in value]
    if kind == "seats":
        return [{k: typed(s.get(k), t) for k, t in SEAT_KEYS.items()} for s in value]
    if kind == "float" and isinstance(value, float) and value != value:
        return None  # NaN: no value (pandas reads a null back as NaN all the same)
    return _SCALARS[kind](value)


def typed_rows(
    rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Every row with exactly ``columns``, each value of its column's type."""
    return [{name: typed(row.get(name), kind) for name, kind in columns.items()} for row in rows]


def arrow_schema(columns: Mapping[str, str]) -> Any:
    """The pyarrow schema of ``columns`` (pyarrow imported here only)."""
    import pyarrow as pa

    scalars = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    message = pa.list_(pa.struct([(k, pa.string()) for k in MESSAGE_KEYS]))
    seats = pa.list_(pa.struct([(k, scalars[t]) for k, t in SEAT_KEYS.items()]))
    kinds = {**scalars, "messages": message, "seats": seats}
    return pa.schema([(name, kinds[kind]) for name, kind in columns.items()])
