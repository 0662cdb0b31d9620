"""Writing a transcript: one JSON object per line, each flushed as it is written,
so a crash loses at most the line being written (docs/transcript.md).

A line is written whole or not at all: when a write fails (a full disk, a
folder gone read-only) the file is cut back to where the line began, the
writer refuses every later line, and :class:`TranscriptWriteError` names the
file. What is on disk stays a readable, resumable prefix of the game
(docs/faults.md). A writer holds its transcript's lock
(:mod:`sandbox.transcript.lock`), so no two processes write one file.

Batch workers with many games on one event loop queue their lines to one
background thread instead (:func:`write_in_background`), which keeps file
writes off the loop and each file's lines in order.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from sandbox.core.events import Event
from sandbox.transcript.lock import LockUnavailable, acquire, release, transcript_lock_path
from sandbox.transcript.schema import SCHEMA_VERSION


class TranscriptWriteError(OSError):
    """A transcript could not be created or a line of it written (disk full,
    read-only folder). Every whole line before it is on disk; one line of text."""

    def __init__(self, path: Path, err: OSError, doing: str = "write") -> None:
        super().__init__(err.errno, err.strerror, str(path))
        self.message = f"cannot {doing} {path}: {err.strerror or err}"

    def __str__(self) -> str:
        return self.message


class _LineFile:
    """An append-only file written in whole lines (unbuffered: each line reaches
    the OS as it is written, as a flush would). After a failed line nothing
    more is written: the file must stay a prefix, never a prefix with a gap."""

    def __init__(self, path: Path, append: bool) -> None:
        self.path = path
        flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
        flags |= 0 if append else os.O_CREAT | os.O_EXCL
        try:
            self.fd = os.open(path, flags, 0o644)
        except FileExistsError:
            raise  # a name taken: not a disk fault
        except OSError as err:
            raise TranscriptWriteError(path, err, "create" if not append else "open") from None
        self.size = os.fstat(self.fd).st_size
        self.created = not append
        self.failed: TranscriptWriteError | None = None

    def append(self, text: str) -> None:
        if self.failed is not None:
            raise self.failed
        # A lone surrogate (json.loads makes one of "\ud83d" in a provider's or a
        # page's JSON) cannot be UTF-8: written as its JSON escape, it reads back
        # as the same string (it can only be inside a JSON string of the line).
        data = memoryview(text.encode("utf-8", "backslashreplace"))
        written = 0
        try:
            while written < len(data):
                written += os.write(self.fd, data[written:])
        except OSError as err:
            self.failed = TranscriptWriteError(self.path, err)
            self._cut_back()
            raise self.failed from None
        self.size += written

    def _cut_back(self) -> None:
        """Drop the part of the line that got out (a full disk takes some bytes
        before it refuses the rest); a torn last line would also be dropped by
        every reader and by resume, should this fail too."""
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, self.size)

    def close(self) -> None:
        os.close(self.fd)
        if self.failed is not None and self.created and self.size == 0:
            # not even its header got out: no game to resume, so no file to leave
            with contextlib.suppress(OSError):
                self.path.unlink()


@dataclass
class _Closing:
    """A request to close a file once its lines are written, and its answer."""

    done: threading.Event = field(default_factory=threading.Event)
    error: OSError | None = None


class _LineThread:
    """The process's background writer: one thread appending queued lines to
    their files in the order they were queued. Lets many games on one event
    loop write transcripts without a file write on the loop."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[_LineFile, str | _Closing]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="transcript-writer", daemon=True)
        self._thread.start()

    def put(self, file: _LineFile, text: str) -> None:
        self._queue.put((file, text))

    def close(self, file: _LineFile) -> None:
        """Close ``file`` once its queued lines are written; raise its first write error."""
        closing = _Closing()
        self._queue.put((file, closing))
        closing.done.wait()
        if closing.error is not None:
            raise closing.error

    def _run(self) -> None:
        while True:
            file, item = self._queue.get()
            if isinstance(item, _Closing):
                self._close(file, item)
                continue
            with contextlib.suppress(OSError):  # kept in file.failed: the next line raises it
                file.append(item)

    def _close(self, file: _LineFile, closing: _Closing) -> None:
        try:
            file.close()
        except OSError as err:
            closing.error = err
        closing.error = file.failed or closing.error
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
    """Appends lines to a transcript file, each whole and at once.

    ``background`` (default: :func:`write_in_background`): lines are queued to
    one writer thread instead of written here. They still reach the file in
    order, so the file is always a prefix of the game's lines (a process killed
    outright loses the lines still queued, as a crash loses a torn last line;
    resume replays the prefix); a failed write is raised by the next line
    queued after it, and by ``close``, which returns only once every line, the
    outcome included, is written.
    """

    def __init__(self, path: Path, *, append: bool = False, background: bool | None = None) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise TranscriptWriteError(path.parent, err, "create") from None
        self._lock = transcript_lock_path(path)
        try:
            acquire(self._lock, str(path))
        except LockUnavailable as err:
            raise TranscriptWriteError(path, err, "create" if not append else "open") from None
        try:
            self._file = _LineFile(path, append)
        except BaseException:
            release(self._lock)
            raise
        self.next_seq = 0
        queued = _background_default if background is None else background
        self._lines: _LineThread | None = _line_thread() if queued else None
        self._closed = False

    def _write(self, obj: Mapping[str, Any]) -> None:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        if self._lines is None:
            self._file.append(text)
            return
        if self._file.failed is not None:  # an earlier queued line failed: stop the game
            raise self._file.failed
        self._lines.put(self._file, text)

    def header(self, header: Mapping[str, Any]) -> None:
        line = {"type": "header", "schema": SCHEMA_VERSION, **header}
        if self._lines is None or self.next_seq or self._file.size:
            self._write(line)
            return
        # A new file's header is written here, not queued behind other games'
        # lines: a process killed in between would leave a file with no header,
        # which a re-run cannot match to its game (it plays it again elsewhere).
        self._file.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")

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
        """Close the file (once every queued line is written) and release its lock.
        Raises a write error the game has not raised yet (a queued line's)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._lines is not None:
                self._lines.close(self._file)
            else:
                self._file.close()
        finally:
            release(self._lock)

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:  # the game's own error is the one to report
            with contextlib.suppress(OSError):
                self.close()
            return
        self.close()


@contextlib.contextmanager
def closed_on_error(writer: TranscriptWriter) -> Iterator[None]:
    """Close ``writer`` (its file and its lock) if the block raises, then re-raise:
    a header the disk refused leaves no open file and no held lock behind."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            writer.close()
        raise
