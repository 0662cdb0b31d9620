"""What makes two transcripts the *same* game, so no game is ever counted twice.

A study game is identified by (study, cell, seed); a batch game by (digest of
the game file, seed). Any other transcript (``sandbox run``, forks) has no
identity; copies of it share its file name. Only the header line and whether
the game ended are needed to tell copies apart, so a folder of thousands of
transcripts is scanned quickly. :func:`each_game_once` is the one gatherer that
stats, studies, reports and exports count games with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from sandbox.transcript.files import OnDisk, read_head, transcript_files
from sandbox.transcript.schema import TranscriptError

T = TypeVar("T")

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


def scan(folder: Path) -> dict[str, list[OnDisk]]:
    """Transcripts in ``folder`` (recursively) grouped by identity; files without
    an identity are left out."""
    found: dict[str, list[OnDisk]] = {}
    if not folder.is_dir():
        return found
    for path in transcript_files([folder]):
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


@dataclass
class Gathered(Generic[T]):
    """Games read once each, what was left out as copies, and what could not be read."""

    games: list[T] = field(default_factory=list)  # in the order their games are first found
    duplicates: list[OnDisk] = field(default_factory=list)  # copies of a game already read
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why unreadable)


def each_game_once(
    paths: Iterable[Path],
    read: Callable[[Path], T],
    errors: tuple[type[Exception], ...] = (TranscriptError, OSError, ValueError),
    finished_first: bool = False,
) -> Gathered[T]:
    """``read`` each game found under ``paths`` once: of a game's copies (same
    identity; without one, the same file name), the first finished one, else the
    first; if that copy raises one of ``errors`` it is skipped and the next copy
    is read instead. The copies not read count as duplicates.

    Games are listed where a copy of them is first found, in file order or, with
    ``finished_first``, finished files before the others (the order
    ``sandbox stats`` has always used; seeded bootstraps depend on it)."""
    found = [(path, read_head(path)) for path in transcript_files(paths)]
    if finished_first:
        found.sort(key=_unfinished)  # a stable sort: file order otherwise
    copies: dict[tuple[bool, str], list[tuple[Path, OnDisk | None]]] = {}
    for path, head in found:
        # without an identity, a file's name (which holds its start time) tells
        # copies apart; a file that is not a transcript is nobody's copy
        key = (True, identity_of(head.header) or path.stem) if head else (False, str(path))
        copies.setdefault(key, []).append((path, head))
    out: Gathered[T] = Gathered()
    for group in copies.values():
        ordered = sorted(group, key=_unfinished)
        for position, (path, _) in enumerate(ordered):
            try:
                game = read(path)
            except errors as err:
                out.skipped.append((str(path), why_unreadable(path, err)))
                continue
            out.games.append(game)
            out.duplicates.extend(head for _, head in ordered[position + 1 :] if head is not None)
            break
    return out


def _unfinished(copy: tuple[Path, OnDisk | None]) -> bool:
    head = copy[1]
    return head is None or not head.finished


def why_unreadable(path: Path, err: Exception) -> str:
    """The first line of the reason, without the path a listing already shows."""
    line = (str(err) or type(err).__name__).splitlines()[0]
    return line.removeprefix(f"{path}: ") or line
