"""Games as analysis reads them: each a :class:`~sandbox.transcript.Transcript`
of rows (:func:`~sandbox.transcript.read_game`: each event line as seq, kind and
the event's fields), so hand-made transcripts in tests and files from older
versions or of variants not installed read the same way. Games are gathered
once each by :func:`sandbox.transcript.each_game_once`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sandbox.transcript import EventRow, Transcript, each_game_once, read_game


@dataclass
class Loaded:
    """Games read from files/folders: each identity once, finished ones first."""

    games: list[Transcript[EventRow]]
    unfinished: list[Transcript[EventRow]]
    duplicates: int  # copies of a game already counted (same identity)
    skipped: list[tuple[str, str]]  # unreadable files with the reason


def load_games(paths: Iterable[Path]) -> Loaded:
    """Read every transcript; a game (same study/cell/seed or batch/seed) counts once."""
    gathered = each_game_once(paths, read_game)
    return Loaded(
        games=[game for game in gathered.games if game.outcome is not None],
        unfinished=[game for game in gathered.games if game.outcome is None],
        duplicates=len(gathered.duplicates),
        skipped=gathered.skipped,
    )
