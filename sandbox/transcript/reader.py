"""Reading a transcript back: the one reader that the session, viewer, stats and
analysis all use (docs/transcript.md).

:func:`read_lines` is the boundary every file passes: it refuses what is not a
transcript and, through :meth:`Lines.objects`, every bad line, except a torn
last line (a crash mid-write; everything before it is intact), which it drops.
On top of it, :func:`load` checks each line against its model and rebuilds the
engine's events, and :func:`load_transcript` gives the typed :class:`GameLog`.
Analysis reads the checked lines as they are (``sandbox.analysis.load``), so
hand-made transcripts and files of other schema versions still read there.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from sandbox.core.events import Event, event_from_json
from sandbox.core.visibility import Visibility
from sandbox.transcript.schema import (
    LINE_MODELS,
    SCHEMA_VERSION,
    CallRecord,
    LineModel,
    OutcomeRecord,
    TranscriptError,
    TranscriptHeader,
)


def iter_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON value, or None if unparseable); blank lines skipped.
    Read as bytes, line by line: a last line torn inside a multibyte character
    is one unparseable line, not an unreadable file."""
    with path.open("rb") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except ValueError:  # not JSON, or not UTF-8
                yield number, None


@dataclass(frozen=True)
class Lines:
    """A transcript's header and its other lines, parsed but not yet checked."""

    path: Path
    header: dict[str, Any]
    header_number: int  # the header's line number (1 unless blank lines come first)
    rest: list[tuple[int, Any]]  # (line number, parsed value or None) after the header

    @property
    def torn_tail(self) -> bool:
        return bool(self.rest) and self.rest[-1][1] is None

    def objects(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, object) for every line after the header, in order. A
        torn last line ends the file; any other unreadable line, or a line that
        is not a JSON object, raises TranscriptError naming file and line.
        Lazy, so a caller's own checks of earlier lines come first."""
        last = len(self.rest) - 1
        for position, (number, obj) in enumerate(self.rest):
            if obj is None:
                if position == last:
                    return
                raise TranscriptError(
                    f"{self.path}:{number}: unreadable line in the middle of the file"
                )
            if not isinstance(obj, dict):
                raise TranscriptError(f"{self.path}:{number}: a line must be a JSON object")
            yield number, obj


def read_lines(path: Path) -> Lines:
    """The file's lines, once it is known to be a transcript (a regular file whose
    first line is a header). Raises TranscriptError with a clear message."""
    if not path.exists():
        raise TranscriptError(f"{path}: no such transcript file")
    if not path.is_file():
        raise TranscriptError(f"{path}: not a regular file")
    lines = list(iter_lines(path))
    first = lines[0][1] if lines else None
    if not isinstance(first, dict) or first.get("type") != "header":
        raise TranscriptError(f"{path}: not a transcript (first line is not a header)")
    return Lines(path, first, lines[0][0], lines[1:])


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

    def agent_at(self, seat: int, seq: int) -> Mapping[str, Any]:
        """Who controlled ``seat`` when event ``seq`` happened (the agent's own
        description): the last control line at or before ``seq`` (a take-over or
        hand-back); else, in a fork, the source's agent for events before the fork
        point; else the header's agent."""
        for control in reversed(self.controls):
            if int(control.get("seat", -1)) == seat and int(control.get("seq", 0)) <= seq:
                return dict(control.get("to") or {})
        fork = self.header.get("forked_from")
        if isinstance(fork, Mapping) and seq < int(fork.get("at") or 0):
            original = (fork.get("agents") or {}).get(str(seat))
            if original is not None:
                return dict(original)
        return dict((self.header.get("agents") or {}).get(str(seat)) or {})


@dataclass(frozen=True)
class GameLog:
    """A transcript as typed objects (what :func:`load_transcript` returns)."""

    path: Path
    header: TranscriptHeader
    events: list[Event]
    visibility: list[Visibility]
    calls: list[CallRecord]
    outcome: OutcomeRecord | None

    @property
    def finished(self) -> bool:
        return self.outcome is not None


def load(path: Path) -> Transcript:
    """Read a transcript of this schema version whose variant is installed, every
    line checked. Raises TranscriptError with a clear message."""
    lines = read_lines(path)
    header = lines.header
    if header.get("schema") != SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: transcript schema {header.get('schema')!r}; this sandbox reads "
            f"schema {SCHEMA_VERSION}"
        )
    _ensure_variant_loaded(str(header.get("variant")))
    _check(TranscriptHeader, header, path, lines.header_number)
    out = Transcript(path, header, torn_tail=lines.torn_tail)
    for number, obj in lines.objects():
        _add_line(out, obj, path, number)
    return out


def _check(model: type[LineModel], obj: object, path: Path, number: int) -> LineModel:
    """The line as its typed model, or one TranscriptError naming file, line and field."""
    try:
        return model.model_validate(obj)
    except ValidationError as err:
        first = err.errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        raise TranscriptError(f"{path}:{number}: {where}: {first['msg']}") from None


def _add_line(out: Transcript, obj: dict[str, Any], path: Path, number: int) -> None:
    kind = obj.get("type")
    model = LINE_MODELS.get(str(kind))
    if model is None:
        raise TranscriptError(f"{path}:{number}: unknown line type {kind!r}")
    _check(model, obj, path, number)
    if kind == "event":
        if obj.get("seq") != len(out.events):
            raise TranscriptError(f"{path}:{number}: event seq {obj.get('seq')} out of order")
        try:
            event = event_from_json(obj)
            _check_event_fields(event)
            Visibility.from_json(obj["vis"])
            out.events.append(event)
        except (ValueError, TypeError, KeyError) as err:
            why = f"not a valid {obj['kind']!r} event ({err})"
            raise TranscriptError(f"{path}:{number}: {why}") from None
        out.visibility.append(obj.get("vis"))
    elif kind == "call":
        out.calls.append(obj)
    elif kind == "control":
        out.controls.append(obj)
    else:
        if out.outcome is not None:
            raise TranscriptError(f"{path}:{number}: a second outcome line")
        out.outcome = obj


_ADAPTERS: dict[str, TypeAdapter[Event]] = {}


def _event_adapter(cls: type[Event]) -> TypeAdapter[Event]:
    """One pydantic adapter per event class (building one costs milliseconds)."""
    adapter = _ADAPTERS.get(cls.kind)
    if adapter is None:
        adapter = _ADAPTERS[cls.kind] = TypeAdapter(cls)
    return adapter


def _check_event_fields(event: Event) -> None:
    """Every field of a rebuilt event has its declared type (a decision's payload is
    a mapping, a seat a number, ...): a hand-edited line fails here, not deep in a
    replay. Raises ValueError naming the first bad field."""
    try:
        _event_adapter(type(event)).validate_python(dataclasses.asdict(event))
    except ValidationError as err:
        first = err.errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"data.{where}: {first['msg']}") from None


def load_transcript(path: Path | str) -> GameLog:
    """Read a transcript into typed objects: the header, the engine's events (with
    their visibility), the model calls and the outcome line. Raises TranscriptError
    (one line naming the file and line) for anything malformed."""
    raw = load(Path(path))
    return GameLog(
        path=raw.path,
        header=TranscriptHeader.model_validate(raw.header),
        events=list(raw.events),
        visibility=[Visibility.from_json(v) for v in raw.visibility],
        calls=[CallRecord.model_validate(c) for c in raw.calls],
        outcome=OutcomeRecord.model_validate(raw.outcome) if raw.outcome is not None else None,
    )


def _ensure_variant_loaded(name: str) -> None:
    from sandbox.games.registry import get_variant

    try:
        get_variant(name)
    except KeyError as err:
        raise TranscriptError(str(err)) from None
