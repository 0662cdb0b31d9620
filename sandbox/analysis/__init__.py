"""Tidy tables, behaviour metrics, ratings and intervals over transcripts.

``games_df``, ``seats_df``, ``decisions_df``, ``calls_df``, ``beliefs_df`` and
``persuasion_df`` give pandas DataFrames (columns in docs/studies.md); the same rows as plain
dicts come from ``sandbox.analysis.tables``.
"""

from sandbox.analysis.frames import (
    beliefs_df,
    calls_df,
    decisions_df,
    games_df,
    persuasion_df,
    seats_df,
)

__all__ = ["beliefs_df", "calls_df", "decisions_df", "games_df", "persuasion_df", "seats_df"]
