"""``sandbox export``: the tidy tables as CSV (standard library) or Parquet
(pandas + pyarrow, the ``study`` extra)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from sandbox.analysis.load import RawGame
from sandbox.analysis.tables import TABLES, Row, rows_of


class ExportError(Exception):
    """A one-line reason the export cannot be written."""


def columns_of(rows: Sequence[Row]) -> list[str]:
    names: list[str] = []
    for row in rows:
        names.extend(k for k in row if k not in names)
    return names


def export(games: Sequence[RawGame], out: Path, fmt: str) -> list[Path]:
    """Write one file per table into ``out``; returns the paths written."""
    if fmt not in ("csv", "parquet"):
        raise ExportError(f"--format: '{fmt}' is not a format here; allowed: csv, parquet")
    if fmt == "parquet":
        _need_parquet()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in TABLES:
        rows = rows_of(games, table)
        path = out / f"{table}.{fmt}"
        if fmt == "csv":
            write_csv(rows, path)
        else:
            write_parquet(rows, path)
        written.append(path)
    return written


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
