"""Finding transcripts: the files named on a command line or inside folders, and
a quick look at each (its header and whether it ended) without reading the rest.

Stats, analysis, studies and batches all find their files here, so "the
transcripts in this folder" means the same everywhere: every ``*.jsonl`` file
below it, in sorted order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUFFIX = ".jsonl"


def transcript_files(paths: Iterable[Path]) -> list[Path]:
    """Each folder's transcript files (recursively, sorted), and each other path as given."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob(f"*{SUFFIX}")) if p.is_file())
        else:
            found.append(path)
    return found


@dataclass(frozen=True)
class OnDisk:
    """A transcript found on disk: its path, header and whether it has ended."""

    path: Path
    header: dict[str, Any]
    finished: bool


def read_head(path: Path) -> OnDisk | None:
    """Header and finished flag of one transcript (its first and last lines are
    parsed, the rest only skimmed); None if it is not a regular file whose first
    line is a header. A torn last line means the game did not end."""
    if not path.is_file():
        return None  # a FIFO or device would block or never end
    try:
        with path.open("rb") as fh:  # bytes: a tail torn inside a character is one bad line
            first = next((line for line in fh if line.strip()), b"")
            last = b""  # the last non-blank line after the header
            for line in fh:
                if line.strip():
                    last = line
        header = json.loads(first) if first else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("type") != "header":
        return None
    return OnDisk(path, header, bool(last) and _is_outcome(last))


def _is_outcome(line: bytes) -> bool:
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("type") == "outcome"
