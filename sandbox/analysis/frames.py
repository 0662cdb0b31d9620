"""The tidy tables as pandas DataFrames (pandas is imported only here)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.analysis.load import load_games
from sandbox.analysis.tables import rows_of

if TYPE_CHECKING:
    import pandas as pd


def frame(paths: Iterable[Path | str], table: str) -> pd.DataFrame:
    """One table over the finished games found in ``paths`` (files or folders)."""
    import pandas as pd

    loaded = load_games(Path(p) for p in paths)
    return pd.DataFrame(rows_of(loaded.games, table))


def _frame_of(table: str, doc: str | None = None) -> Callable[[Iterable[Path | str]], pd.DataFrame]:
    """The public reader of one table: :func:`frame` with ``table`` fixed."""

    def table_df(paths: Iterable[Path | str]) -> pd.DataFrame:
        return frame(paths, table)

    table_df.__name__ = table_df.__qualname__ = f"{table}_df"
    table_df.__doc__ = doc
    return table_df


games_df = _frame_of("games")
seats_df = _frame_of("seats")
decisions_df = _frame_of("decisions")
calls_df = _frame_of("calls")
beliefs_df = _frame_of("beliefs")
persuasion_df = _frame_of(
    "persuasion", "One row per (speech, listener) with probes right around the speech."
)
discussion_df = _frame_of(
    "discussion", "One row per (open day, seat): messages, replies, first round, silence."
)
