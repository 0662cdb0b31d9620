"""``sandbox export``: the tidy tables as CSV (standard library) or Parquet
(pyarrow, the ``study`` extra); or training data (``trajectories``: JSONL,
``trajectories-parquet``: Parquet), one row per decision and one per game
(sandbox.analysis.trajectories).

Every table is written with its declared columns and types
(``sandbox.analysis.columns``), an empty one too: a CSV has its header, a
Parquet file its schema. The tables are ``tables.TABLES``; a new table needs
its row maker there and its columns in ``columns.COLUMNS``, nothing here."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from sandbox.analysis.columns import arrow_schema, columns_for, typed_rows
from sandbox.analysis.statements import write_statements
from sandbox.analysis.tables import TABLES, Row, rows_of
from sandbox.analysis.trajectories import trajectories
from sandbox.transcript import EventRow, Transcript

FORMATS = ("csv", "parquet", "trajectories", "trajectories-parquet")
# The training-data files: one row per decision, one row per game.
TRAJECTORY_TABLES = ("trajectories", "trajectory_games")


class ExportError(Exception):
    """A one-line reason the export cannot be written."""


def export(games: Sequence[Transcript[EventRow]], out: Path, fmt: str) -> list[Path]:
    """Write one file per table into ``out``; returns the paths written."""
    if fmt not in FORMATS:
        allowed = ", ".join(FORMATS)
        raise ExportError(f"--format: '{fmt}' is not a format here; allowed: {allowed}")
    if fmt.endswith("parquet"):
        _need_parquet()
    out.mkdir(parents=True, exist_ok=True)
    if fmt.startswith("trajectories"):
        return export_trajectories(games, out, parquet=fmt.endswith("parquet"))
    written: list[Path] = []
    for table in TABLES:
        rows = rows_of(games, table)
        path = out / f"{table}.{fmt}"
        if fmt == "csv":
            write_csv(rows, path, table)
        else:
            write_parquet(rows, path, table)
        written.append(path)
    written.append(write_statements(games, out, fmt))  # issue 39: one row per claim
    return written


def export_trajectories(
    games: Sequence[Transcript[EventRow]], out: Path, *, parquet: bool
) -> list[Path]:
    """``trajectories`` (one row per decision) and ``trajectory_games`` (one row
    per game), as JSON Lines or as Parquet."""
    decisions, rows = trajectories(games)
    written: list[Path] = []
    for name, table in zip(TRAJECTORY_TABLES, (decisions, rows), strict=True):
        path = out / f"{name}.{'parquet' if parquet else 'jsonl'}"
        if parquet:
            write_parquet(table, path, name)
        else:
            write_jsonl(table, path, name)
        written.append(path)
    return written


def write_jsonl(rows: Sequence[Row], path: Path, table: str) -> None:
    columns = columns_for(table, rows)
    with path.open("w", encoding="utf-8") as handle:
        for row in typed_rows(rows, columns):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_csv(rows: Sequence[Row], path: Path, table: str) -> None:
    columns = columns_for(table, rows)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows(typed_rows(rows, columns))


def _need_parquet() -> None:
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        raise ExportError(
            "parquet needs pandas and pyarrow: pip install 'llm-deduction-sandbox[study]'"
        ) from None


def write_parquet(rows: Sequence[Row], path: Path, table: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = columns_for(table, rows)
    schema = arrow_schema(columns)
    pq.write_table(pa.Table.from_pylist(typed_rows(rows, columns), schema=schema), path)
