"""Tidy tables, behaviour metrics, ratings and intervals over transcripts.

``games_df``, ``seats_df``, ``decisions_df``, ``calls_df``, ``beliefs_df``,
``persuasion_df`` and ``discussion_df`` (open days, issue 42) give pandas
DataFrames (columns in docs/study-reference.md); the same rows as plain dicts come from
``sandbox.analysis.tables``.
"""

from sandbox.analysis.frames import (
    beliefs_df,
    calls_df,
    decisions_df,
    discussion_df,
    games_df,
    persuasion_df,
    seats_df,
)

__all__ = [
    "beliefs_df",
    "calls_df",
    "decisions_df",
    "discussion_df",
    "games_df",
    "persuasion_df",
    "seats_df",
]
