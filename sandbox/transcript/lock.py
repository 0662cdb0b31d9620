"""One writer per transcript and per study or batch folder (docs/faults.md).

A lock is a :class:`filelock.FileLock` on a small lock file, held for as long
as the writer runs. The operating system drops such a lock when its holder's
file is closed, so a holder that crashes or is killed (SIGKILL included) leaves
nothing stuck: the next writer finds the file unlocked and takes it over.
While held, the file names its holder (pid, host, command, since), so a refused
writer can say who is in the way in one line.

* A transcript's lock is ``.<name>.lock`` beside it; every
  :class:`~sandbox.transcript.writer.TranscriptWriter` takes it, and ``resume``
  takes it before it reads or repairs the file.
* A folder's lock is ``<folder>/.sandbox.lock``; ``sandbox study`` and
  ``sandbox batch`` take it before they look at what the folder holds.

Within one process a lock is re-entrant (resume's writer re-takes the lock
resume took), so only other processes are refused. The folder lock is the
commands' (``cli/study.py``, ``cli/batch.py``): ``run_study`` and ``run_batch``
called from Python take none, and their transcripts' locks still keep two
writers off one file. Lock files are removed on release, while still held:
filelock refuses an inode that is no longer at the path, so removing it cannot
let two processes hold one lock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.transcript.schema import TranscriptError

if TYPE_CHECKING:
    from filelock import FileLock

FOLDER_LOCK = ".sandbox.lock"
MAX_INFO_BYTES = 4096  # a holder's line; more is not a lock file of ours


class Busy(TranscriptError):
    """Another process writes this transcript or folder now (one line naming it)."""


class LockUnavailable(OSError):
    """The lock file cannot be made (a read-only or full folder): one line."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


# The count of holds is ours, not filelock's: the last release removes the
# file before it unlocks, which filelock's own counter cannot tell us.
_held: dict[Path, tuple[FileLock, int]] = {}
_held_guard = threading.Lock()


def transcript_lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def folder_lock_path(folder: Path) -> Path:
    return folder / FOLDER_LOCK


@contextlib.contextmanager
def transcript_lock(path: Path) -> Iterator[None]:
    """Hold the lock of the transcript at ``path`` (Busy if another process does)."""
    with holding(transcript_lock_path(path), what=str(path)):
        yield


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the lock of a study's or batch's folder (Busy if another process does)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise LockUnavailable(err.errno, err.strerror, str(folder)) from None
    with holding(folder_lock_path(folder), what=str(folder)):
        yield


@contextlib.contextmanager
def holding(lock: Path, what: str) -> Iterator[None]:
    acquire(lock, what)
    try:
        yield
    finally:
        release(lock)


def acquire(lock: Path, what: str) -> None:
    """Take ``lock`` for this process or raise :class:`Busy` naming its holder."""
    # imported when a lock is first taken: reading transcripts needs none
    from filelock import FileLock, Timeout

    key = lock.absolute()
    with _held_guard:
        held = _held.get(key)
        if held is not None:
            _held[key] = (held[0], held[1] + 1)
            return
        # one hold per process, shared by its threads; no soft fallback, whose
        # marker a killed holder would leave locked
        file_lock = FileLock(
            key, thread_local=False, fallback_to_soft=False, on_acquired=_write_holder
        )
        try:
            file_lock.acquire(timeout=0)
        except Timeout:
            message = (
                f"{what} is in use by another sandbox: {_read_holder(key)}; wait for it to end"
            )
            raise Busy(message) from None
        except OSError as err:
            raise LockUnavailable(err.errno, err.strerror, str(key)) from None
        _held[key] = (file_lock, 1)


def release(lock: Path) -> None:
    key = lock.absolute()
    with _held_guard:
        held = _held.get(key)
        if held is None:
            return
        file_lock, count = held
        if count > 1:
            _held[key] = (file_lock, count - 1)
            return
        del _held[key]
        with contextlib.suppress(OSError):
            key.unlink()
        file_lock.release()


def _write_holder(fd: int) -> None:
    """Who holds the lock, for whoever is refused. Best effort: a full disk may
    leave it empty, which costs only the holder's name in that message."""
    since = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    info = {"pid": os.getpid(), "host": socket.gethostname(), "command": _command()}
    text = (json.dumps({**info, "since": since}, ensure_ascii=False) + "\n").encode()
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, text[:MAX_INFO_BYTES])


def _read_holder(lock: Path) -> str:
    try:
        with lock.open("rb") as fh:
            info = json.loads(fh.read(MAX_INFO_BYTES) or b"{}")
    except (OSError, ValueError):
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "a process that has not said who it is yet"
    command = str(info.get("command") or "?")
    return (
        f"pid {info.get('pid')} on {info.get('host', '?')} ({command}), "
        f"since {info.get('since', '?')}"
    )


def _command() -> str:
    """This process's command line, short: ``sandbox study configs/x.toml``."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path("python")
    # `python -m sandbox` runs sandbox/__main__.py: call it by its package
    name = program.parent.name if program.name == "__main__.py" else program.name
    args = [name, *sys.argv[1:]]
    text = shlex.join(args)
    return text if len(text) <= 160 else text[:157] + "..."
