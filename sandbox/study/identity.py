"""What makes two transcripts the *same* game, so no game is ever counted twice.

A study game is identified by (study, cell, seed); a batch game by (digest of
the game file, seed). Any other transcript (``sandbox run``, forks) has no
identity and is always counted. Only the header line is needed, so a folder of
thousands of transcripts is scanned quickly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Sections of a game file that do not change what is played.
NOT_THE_GAME = ("run", "seed", "name")


def config_digest(raw_config: Mapping[str, Any]) -> str:
    """A short digest of the game file without its run settings and seed."""
    kept = {k: v for k, v in raw_config.items() if k not in NOT_THE_GAME}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def identity_of(header: Mapping[str, Any]) -> str | None:
    """The game's identity from its transcript header, or None (always counted)."""
    study = header.get("study")
    if isinstance(study, Mapping):
        return f"study:{study.get('name')}:{study.get('cell')}:{header.get('seed')}"
    batch = header.get("batch")
    if isinstance(batch, Mapping):
        return f"batch:{batch.get('config')}:{header.get('seed')}"
    return None


@dataclass(frozen=True)
class OnDisk:
    """A transcript found in a folder: its path, header and whether it has ended."""

    path: Path
    header: dict[str, Any]
    finished: bool


def read_head(path: Path) -> OnDisk | None:
    """Header and finished flag of one transcript; None if it is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        header = json.loads(lines[0]) if lines else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("type") != "header":
        return None
    return OnDisk(path, header, _ended(lines))


def _ended(lines: list[str]) -> bool:
    for line in reversed(lines):
        if not line.strip():
            continue
        try:
            last = json.loads(line)
        except ValueError:
            return False  # a torn last line: the game did not end
        return isinstance(last, dict) and last.get("type") == "outcome"
    return False


def scan(folder: Path) -> dict[str, list[OnDisk]]:
    """Transcripts in ``folder`` (recursively) grouped by identity; files without
    an identity are left out."""
    found: dict[str, list[OnDisk]] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*.jsonl")):
        head = read_head(path)
        key = identity_of(head.header) if head else None
        if head is not None and key is not None:
            found.setdefault(key, []).append(head)
    return found


def plan_of(copies: list[OnDisk] | None) -> tuple[str, Path | None]:
    """What to do with one identity: ("done", path) if a copy finished,
    ("resume", path) if only interrupted copies exist (the newest), else ("new", None)."""
    if not copies:
        return "new", None
    done = [c for c in copies if c.finished]
    if done:
        return "done", done[0].path
    return "resume", copies[-1].path
