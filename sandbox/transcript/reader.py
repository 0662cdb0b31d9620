"""Reading a transcript back: the one family of read functions over the one
recorded-game type, :class:`~sandbox.transcript.record.Transcript`
(docs/transcript.md). The session, viewer, stats, analysis, studies and batches
all read through here.

* :func:`read_transcript` gives ``Transcript[Event]``: a transcript of this
  schema version whose variant is installed, every line checked, the engine's
  events rebuilt (replay, resume, fork, the viewer);
* :func:`read_game` gives ``Transcript[EventRow]``: each event line as a row, from
  any schema version and any variant (analysis, studies, metrics);
* :func:`load_transcript` gives the public API's typed :class:`GameLog`.

Each raises one :class:`TranscriptError` with a one-line message for a file that
cannot be read as a transcript: missing, a folder, not JSON Lines, no header, a
header cut short, another schema version, a bad line. A torn last line (a crash
mid-write; everything before it is intact) is not an error: it is dropped and
the transcript's ``torn_tail`` says so. Underneath, :func:`read_lines` is the
boundary every file passes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from sandbox.core.events import Event, event_from_json
from sandbox.core.visibility import Visibility
from sandbox.core.words import one_line
from sandbox.transcript.record import EventRow, Transcript
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


@dataclass(frozen=True)
class GameLog:
    """A transcript as the public API's typed objects (what :func:`load_transcript`
    returns): the :class:`Transcript` of :func:`read_transcript` with its header,
    calls and outcome as their line models."""

    path: Path
    header: TranscriptHeader
    events: list[Event]
    visibility: list[Visibility]
    calls: list[CallRecord]
    outcome: OutcomeRecord | None

    @property
    def finished(self) -> bool:
        return self.outcome is not None


def read_transcript(path: Path | str) -> Transcript[Event]:
    """Read a transcript of this schema version whose variant is installed, every
    line checked and its events rebuilt. Raises TranscriptError (one line)."""
    path = Path(path)
    with _one_error(path):
        lines = read_lines(path)
        header = lines.header
        if header.get("schema") != SCHEMA_VERSION:
            raise TranscriptError(
                f"{path}: transcript schema {header.get('schema')!r}; this sandbox reads "
                f"schema {SCHEMA_VERSION}"
            )
        _ensure_variant_loaded(str(header.get("variant")))
        _check(TranscriptHeader, header, path, lines.header_number)
        out: Transcript[Event] = Transcript(path, header, torn_tail=lines.torn_tail)
        for number, obj in lines.objects():
            _add_line(out, obj, path, number)
        return out


def read_game(path: Path | str) -> Transcript[EventRow]:
    """Read a transcript's lines as they are, each event line as a row: any
    schema version, any variant (installed or not), hand-made files too. Raises
    TranscriptError (one line) when it is not a transcript, or when a field the
    analysis reads has the wrong shape (``"agents": true``)."""
    path = Path(path)
    with _one_error(path):
        lines = read_lines(path)
        game: Transcript[EventRow] = Transcript(path, lines.header, torn_tail=lines.torn_tail)
        try:
            for _, obj in lines.objects():
                _add_row(game, obj)
            # every reader of a game's rows uses these: a bad shape is found here, once
            _ = (game.roles, game.agents, game.contestants, game.results)
        except (TypeError, ValueError, AttributeError) as err:
            raise TranscriptError(f"{path}: a field has the wrong shape ({err})") from None
        return game


@contextlib.contextmanager
def _one_error(path: Path) -> Iterator[None]:
    """Every way a file fails to read as a transcript, as one TranscriptError
    on one line (a folder, an unreadable file, a value no model expected)."""
    if path.is_dir():
        raise TranscriptError(f"{path}: is a directory, not a transcript file")
    try:
        yield
    except TranscriptError as err:
        raise type(err)(one_line(err)) from None
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as err:
        raise TranscriptError(one_line(f"{path}: not a readable transcript ({err})")) from None


def _check(model: type[LineModel], obj: object, path: Path, number: int) -> LineModel:
    """The line as its typed model, or one TranscriptError naming file, line and field."""
    try:
        return model.model_validate(obj)
    except ValidationError as err:
        first = err.errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        raise TranscriptError(f"{path}:{number}: {where}: {first['msg']}") from None


def _add_line(out: Transcript[Event], obj: dict[str, Any], path: Path, number: int) -> None:
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


def _add_row(game: Transcript[EventRow], obj: Mapping[str, Any]) -> None:
    kind = obj.get("type")
    if kind == "event":
        _check_row(obj)
        game.events.append({"seq": obj.get("seq"), "kind": obj.get("kind"), **obj.get("data", {})})
        game.visibility.append(obj.get("vis", "public"))
    elif kind == "call":
        game.calls.append(dict(obj))
    elif kind == "control":
        game.controls.append(dict(obj))
    elif kind == "outcome":
        game.outcome = dict(obj)


def _check_row(obj: Mapping[str, Any]) -> None:
    """An event line's own fields as the schema has them (EventLine): every
    table reads them, so a damaged one skips the game here, in one line."""
    seq, kind, data, vis = obj.get("seq"), obj.get("kind"), obj.get("data", {}), obj.get("vis")
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0):
        raise TypeError(f"event seq {seq!r}")
    if not isinstance(kind, str) or not isinstance(data, Mapping):
        raise TypeError(f"event {seq}: kind {kind!r}, data {type(data).__name__}")
    if not (vis is None or isinstance(vis, str | list)):
        raise TypeError(f"event {seq}: vis {vis!r}")


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
    raw = read_transcript(path)
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
