"""The transcript: one append-only JSONL file per game.

Line 1 is the header (schema version, variant, seed, config, seat roles,
seat agents). Then, in order as they happen, ``event`` lines (every engine
event with its visibility) and ``call`` lines (every model call, referee-only).
The last line is the ``outcome``. Every line is flushed as it is written, so a
crash loses at most the line being written; :func:`load` skips a torn last line.
See docs/transcript.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from sandbox.core.events import Event, event_from_json

SCHEMA_VERSION = 1


class TranscriptError(Exception):
    """A transcript that cannot be read (wrong schema, not a transcript, empty)."""


class TranscriptWriter:
    """Appends lines to a transcript file, flushing each one."""

    def __init__(self, path: Path, *, append: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] = path.open("a" if append else "x", encoding="utf-8")
        self.next_seq = 0

    def _write(self, obj: Mapping[str, Any]) -> None:
        self._fh.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()

    def header(self, header: Mapping[str, Any]) -> None:
        self._write({"type": "header", "schema": SCHEMA_VERSION, **header})

    def event(self, seq: int, event: Event) -> None:
        self._write({"type": "event", "seq": seq, **event.to_json()})
        self.next_seq = seq + 1

    def call(self, record: Mapping[str, Any]) -> None:
        self._write({"type": "call", **record})

    def control(self, record: Mapping[str, Any]) -> None:
        """Who controls a seat from now on (a host's take-over or hand-back)."""
        self._write({"type": "control", **record})

    def outcome(self, outcome: Mapping[str, Any]) -> None:
        self._write({"type": "outcome", **outcome})

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class Transcript:
    """A transcript read back: header, events in order, calls, outcome (if finished)."""

    path: Path
    header: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    visibility: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None
    torn_tail: bool = False

    @property
    def finished(self) -> bool:
        return self.outcome is not None


def iter_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """(line number, parsed object or None if unparseable)."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError:
                yield number, None


def load(path: Path) -> Transcript:
    """Read a transcript. Raises TranscriptError with a clear message."""
    if not path.is_file():
        raise TranscriptError(f"{path}: no such transcript file")
    lines = list(iter_lines(path))
    if not lines or lines[0][1] is None or lines[0][1].get("type") != "header":
        raise TranscriptError(f"{path}: not a transcript (first line is not a header)")
    header = lines[0][1]
    if header.get("schema") != SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: transcript schema {header.get('schema')!r}; this sandbox reads "
            f"schema {SCHEMA_VERSION}"
        )
    _ensure_variant_loaded(str(header.get("variant")))
    out = Transcript(path, header)
    for i, (number, obj) in enumerate(lines[1:], start=1):
        if obj is None:
            if i == len(lines) - 1:
                out.torn_tail = True  # a crash mid-write; everything before it is intact
                break
            raise TranscriptError(f"{path}:{number}: unreadable line in the middle of the file")
        _add_line(out, obj, path, number)
    return out


def _add_line(out: Transcript, obj: dict[str, Any], path: Path, number: int) -> None:
    kind = obj.get("type")
    if kind == "event":
        if obj.get("seq") != len(out.events):
            raise TranscriptError(f"{path}:{number}: event seq {obj.get('seq')} out of order")
        out.events.append(event_from_json(obj))
        out.visibility.append(obj.get("vis"))
    elif kind == "call":
        out.calls.append(obj)
    elif kind == "control":
        out.controls.append(obj)
    elif kind == "outcome":
        out.outcome = obj
    else:
        raise TranscriptError(f"{path}:{number}: unknown line type {kind!r}")


def _ensure_variant_loaded(name: str) -> None:
    from sandbox.core.variant import get_variant

    try:
        get_variant(name)
    except KeyError as err:
        raise TranscriptError(str(err)) from None
