"""Writing a transcript: one JSON object per line, each flushed as it is written,
so a crash loses at most the line being written (docs/transcript.md).

Batch workers with many games on one event loop queue their lines to one
background thread instead (:func:`write_in_background`), which keeps file
writes off the loop and each file's lines in order.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from sandbox.core.events import Event
from sandbox.transcript.schema import SCHEMA_VERSION


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
