"""The tidy tables as pandas DataFrames (pandas is imported only here)."""

from __future__ import annotations

from collections.abc import Iterable
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


def games_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    return frame(paths, "games")


def seats_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    return frame(paths, "seats")


def decisions_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    return frame(paths, "decisions")


def calls_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    return frame(paths, "calls")


def beliefs_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    return frame(paths, "beliefs")


def persuasion_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    """One row per (speech, listener) with probes right around the speech."""
    return frame(paths, "persuasion")


def discussion_df(paths: Iterable[Path | str]) -> pd.DataFrame:
    """One row per (open day, seat): messages, replies, first round, silence."""
    return frame(paths, "discussion")
