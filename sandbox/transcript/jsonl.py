"""The transcript: one append-only JSONL file per game.

Line 1 is the header (schema version, variant, seed, config, seat roles,
seat agents). Then, in order as they happen, ``event`` lines (every engine
event with its visibility) and ``call`` lines (every model call, referee-only).
The last line is the ``outcome``. Every line is flushed as it is written, so a
crash loses at most the line being written; :func:`load` skips a torn last line.
See docs/transcript.md.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from sandbox.core.events import Event, event_from_json
from sandbox.core.visibility import Visibility

SCHEMA_VERSION = 1


class _Line(BaseModel):
    # Lines may carry more keys than these (a study's cell, a call's prompt): kept.
    model_config = ConfigDict(extra="allow", frozen=True)


class TranscriptHeader(_Line):
    """Line 1: what was played, by whom (roles and agents are referee-only facts)."""

    type: str = "header"
    schema_: int = Field(alias="schema")
    variant: str
    seed: int = Field(ge=0)
    name: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)
    game_config: dict[str, Any] | None = None
    roles: dict[int, str]
    agents: dict[int, dict[str, Any]] = Field(default_factory=dict)
    sandbox_version: str | None = None
    started: str | None = None


class EventLine(_Line):
    """An engine event with its sequence number and who could see it."""

    type: str = "event"
    seq: int = Field(ge=0)
    kind: str
    data: dict[str, Any]
    vis: str | list[int]


class CallRecord(_Line):
    """One HTTP attempt of a model seat (referee-only)."""

    type: str = "call"
    seat: int
    request_id: str
    decision: str | None = None
    model: str | None = None
    attempt: int | None = None
    repair: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    latency_ms: float | None = None
    raw: str | None = None
    error: str | None = None


class OutcomeRecord(_Line):
    """The last line: how the game ended and the run's counters."""

    type: str = "outcome"
    reason: str
    results: dict[int, str]
    summary: str = ""
    stats: dict[str, Any] = Field(default_factory=dict)
    ended: str | None = None


class ControlLine(_Line):
    """A seat changing hands mid-game (a host's take-over or hand-back)."""

    type: str = "control"
    seq: int = Field(ge=0)
    seat: int
    request_id: str | None = None
    to: dict[str, Any] = Field(default_factory=dict)


LINE_MODELS: dict[str, type[_Line]] = {
    "event": EventLine,
    "call": CallRecord,
    "control": ControlLine,
    "outcome": OutcomeRecord,
}


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


class TranscriptError(Exception):
    """A transcript that cannot be read (wrong schema, not a transcript, empty)."""


@dataclass
class _Closing:
    """A request to close a file once its lines are written, and its answer."""

    done: threading.Event = field(default_factory=threading.Event)
    error: OSError | None = None


class _LineThread:
    """The process's background writer: one thread appending queued lines to
    their files in the order they were queued, flushing each. Lets many games on
    one event loop write transcripts without a file write on the loop."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[IO[str], str | _Closing]] = queue.SimpleQueue()
        self._failed: dict[int, OSError] = {}  # id(file) -> its first write error
        self._thread = threading.Thread(target=self._run, name="transcript-writer", daemon=True)
        self._thread.start()

    def put(self, fh: IO[str], text: str) -> None:
        self._queue.put((fh, text))

    def close(self, fh: IO[str]) -> None:
        """Close ``fh`` once its queued lines are written; raise its first write error."""
        closing = _Closing()
        self._queue.put((fh, closing))
        closing.done.wait()
        if closing.error is not None:
            raise closing.error

    def _run(self) -> None:
        while True:
            fh, item = self._queue.get()
            if isinstance(item, _Closing):
                self._close(fh, item)
                continue
            try:
                fh.write(item)
                fh.flush()
            except OSError as err:  # e.g. a full disk: reported by close
                self._failed.setdefault(id(fh), err)

    def _close(self, fh: IO[str], closing: _Closing) -> None:
        try:
            fh.close()
        except OSError as err:
            self._failed.setdefault(id(fh), err)
        closing.error = self._failed.pop(id(fh), None)
        closing.done.set()


_background: _LineThread | None = None
_background_default = False
_background_lock = threading.Lock()


def write_in_background(on: bool) -> None:
    """Whether transcript writers opened from now on in this process queue their
    lines to the background writer (batch workers with games in flight) instead
    of writing them on the caller's thread."""
    global _background_default
    _background_default = on


def _line_thread() -> _LineThread:
    global _background
    with _background_lock:
        if _background is None:
            _background = _LineThread()
        return _background


class TranscriptWriter:
    """Appends lines to a transcript file, flushing each one.

    ``background`` (default: :func:`write_in_background`): lines are queued to
    one writer thread instead of written here. They still reach the file in
    order, each flushed, so the file is always a prefix of the game's lines (a
    process killed outright loses the lines still queued, as a crash loses a
    torn last line; resume replays the prefix); ``close`` returns only once
    every line, the outcome included, is written.
    """

    def __init__(self, path: Path, *, append: bool = False, background: bool | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] = path.open("a" if append else "x", encoding="utf-8")
        self.next_seq = 0
        queued = _background_default if background is None else background
        self._lines: _LineThread | None = _line_thread() if queued else None

    def _write(self, obj: Mapping[str, Any]) -> None:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        if self._lines is not None:
            self._lines.put(self._fh, text)
            return
        self._fh.write(text)
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
        if self._lines is not None:
            self._lines.close(self._fh)
        else:
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


def iter_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON value, or None if unparseable)."""
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
    if not path.exists():
        raise TranscriptError(f"{path}: no such transcript file")
    if not path.is_file():
        raise TranscriptError(f"{path}: not a regular file")
    lines = list(iter_lines(path))
    first = lines[0][1] if lines else None
    if not isinstance(first, dict) or first.get("type") != "header":
        raise TranscriptError(f"{path}: not a transcript (first line is not a header)")
    header = lines[0][1]
    if header.get("schema") != SCHEMA_VERSION:
        raise TranscriptError(
            f"{path}: transcript schema {header.get('schema')!r}; this sandbox reads "
            f"schema {SCHEMA_VERSION}"
        )
    _ensure_variant_loaded(str(header.get("variant")))
    _check(TranscriptHeader, header, path, lines[0][0])
    out = Transcript(path, header)
    for i, (number, obj) in enumerate(lines[1:], start=1):
        if obj is None:
            if i == len(lines) - 1:
                out.torn_tail = True  # a crash mid-write; everything before it is intact
                break
            raise TranscriptError(f"{path}:{number}: unreadable line in the middle of the file")
        _add_line(out, obj, path, number)
    return out


def _check(model: type[_Line], obj: object, path: Path, number: int) -> _Line:
    """The line as its typed model, or one TranscriptError naming file, line and field."""
    try:
        return model.model_validate(obj)
    except ValidationError as err:
        first = err.errors(include_url=False, include_context=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        raise TranscriptError(f"{path}:{number}: {where}: {first['msg']}") from None


def _add_line(out: Transcript, obj: object, path: Path, number: int) -> None:
    if not isinstance(obj, dict):
        raise TranscriptError(f"{path}:{number}: a line must be a JSON object")
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
