"""``sandbox export``: the tidy tables as CSV (standard library) or Parquet
(pandas + pyarrow, the ``study`` extra); or training data (``trajectories``:
JSONL, ``trajectories-parquet``: Parquet), one row per decision and one per
game (sandbox.analysis.trajectories)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from sandbox.analysis.statements import write_statements
from sandbox.analysis.tables import TABLES, Row, rows_of
from sandbox.analysis.trajectories import trajectories
from sandbox.transcript import EventRow, Transcript

FORMATS = ("csv", "parquet", "trajectories", "trajectories-parquet")
# The training-data files: one row per decision, one row per game.
TRAJECTORY_TABLES = ("trajectories", "trajectory_games")


class ExportError(Exception):
    """A one-line reason the export cannot be written."""


def columns_of(rows: Sequence[Row]) -> list[str]:
    names: list[str] = []
    for row in rows:
        names.extend(k for k in row if k not in names)
    return names


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
            write_csv(rows, path)
        else:
            write_parquet(rows, path)
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
            write_parquet(table, path)
        else:
            write_jsonl(table, path)
        written.append(path)
    return written


def write_jsonl(rows: Sequence[Row], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_csv(rows: Sequence[Row], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns_of(rows))
        writer.writeheader()
        writer.writerows(rows)


def _need_parquet() -> None:
    try:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        raise ExportError(
            "parquet needs pandas and pyarrow: pip install 'llm-deduction-sandbox[study]'"
        ) from None


def write_parquet(rows: Sequence[Row], path: Path) -> None:
    import pandas as pd

    pd.DataFrame(list(rows), columns=columns_of(rows)).to_parquet(path, index=False)
