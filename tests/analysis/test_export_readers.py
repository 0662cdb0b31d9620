"""Every exported table reads back in pandas and DuckDB, with its declared
columns and types, the empty ones too (issue 41: with the belief probe off,
``beliefs`` and ``persuasion`` were a zero-column Parquet file and a CSV
without a header, which DuckDB and pandas both refuse)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.analysis.columns import COLUMNS
from sandbox.analysis.export import TRAJECTORY_TABLES
from sandbox.analysis.tables import TABLES
from tests.analysis.test_export_report import invoke, study_folder

__all__ = ["study_folder"]  # the fixture, shared with the export tests

pd = pytest.importorskip("pandas")
duckdb = pytest.importorskip("duckdb")

# How each declared type reads back: pandas' dtype kind, DuckDB's type name.
PANDAS_KINDS = {"str": "O", "int": "i", "float": "f", "bool": "b"}
DUCKDB_TYPES = {"str": "VARCHAR", "int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN"}


@pytest.fixture(scope="module")
def exported(study_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every format of a default study (belief probe off: its beliefs and
    persuasion tables are empty)."""
    out = tmp_path_factory.mktemp("export")
    for fmt in ("csv", "parquet", "trajectories", "trajectories-parquet"):
        result = invoke("export", str(study_folder), "--format", fmt, "--out", str(out))
        assert result.exit_code == 0, result.stderr
    return out


def test_every_table_declares_its_columns() -> None:
    """A table added to the export needs its columns in sandbox.analysis.columns."""
    assert set(TABLES) | set(TRAJECTORY_TABLES) <= set(COLUMNS)


@pytest.mark.parametrize("table", list(TABLES))
def test_each_table_reads_in_pandas_and_duckdb(exported: Path, table: str) -> None:
    columns = COLUMNS[table]
    csv_path, parquet_path = exported / f"{table}.csv", exported / f"{table}.parquet"
    from_csv = pd.read_csv(csv_path)
    from_parquet = pd.read_parquet(parquet_path)
    assert list(from_csv.columns) == list(from_parquet.columns) == list(columns)
    assert len(from_csv) == len(from_parquet)
    for name, kind in columns.items():
        if kind == "bool" and from_parquet[name].isna().any():
            continue  # a null among booleans reads as object in pandas
        if kind == "int" and from_parquet[name].isna().any():
            continue  # likewise a null among integers (float in pandas)
        assert from_parquet[name].dtype.kind in PANDAS_KINDS[kind] + "O", (name, kind)
    with duckdb.connect() as con:
        described = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{parquet_path}')").fetchall()
        assert [(row[0], row[1]) for row in described] == [
            (name, DUCKDB_TYPES[kind]) for name, kind in columns.items()
        ]
        rows = con.execute(f"SELECT count(*) FROM read_csv('{csv_path}', header=true)").fetchone()
        assert rows is not None and rows[0] == len(from_csv)
        header = con.execute(f"DESCRIBE SELECT * FROM read_csv('{csv_path}', header=true)")
        assert [row[0] for row in header.fetchall()] == list(columns)


def test_the_default_study_has_empty_tables_that_still_read(exported: Path) -> None:
    """The case of the issue: the probe off, beliefs and persuasion are empty."""
    for table in ("beliefs", "persuasion"):
        assert pd.read_csv(exported / f"{table}.csv").empty
        assert pd.read_parquet(exported / f"{table}.parquet").empty


@pytest.mark.parametrize("table", list(TRAJECTORY_TABLES))
def test_the_training_tables_read_in_pandas_and_duckdb(exported: Path, table: str) -> None:
    jsonl, parquet = exported / f"{table}.jsonl", exported / f"{table}.parquet"
    frame = pd.read_parquet(parquet)
    assert list(frame.columns) == list(COLUMNS[table]) and len(frame) > 0
    assert len(pd.read_json(jsonl, lines=True)) == len(frame)
    with duckdb.connect() as con:
        rows = con.execute(f"SELECT count(*) FROM read_parquet('{parquet}')").fetchone()
        assert rows is not None and rows[0] == len(frame)
        rows = con.execute(f"SELECT count(*) FROM read_json_auto('{jsonl}')").fetchone()
        assert rows is not None and rows[0] == len(frame)
