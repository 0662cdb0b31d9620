"""Transcripts: one append-only JSONL file per game, and the recorded game read
back from it (docs/transcript.md).

This package's face is the import path every other module uses:

* the recorded game, :class:`Transcript` (its events the engine's ``Event``\\ s or
  each event line as a ``EventRow``), with its identity (:func:`identity_of`) and
  sides (:func:`side_of`);
* one family of readers over it: :func:`read_transcript`, :func:`read_game`,
  :func:`each_game_once` (each game of many files once) and, for the public API,
  :func:`load_transcript` (:class:`GameLog`); every one raises
  :class:`TranscriptError` with a one-line message for a file it cannot read;
* the writer, :class:`TranscriptWriter`, and the locks that keep one writer
  per file and folder.

Behind it: the line models (``schema``), the type (``record``), the readers
(``reader``), identity (``identity``), sides (``sides``), discovery (``files``),
who saw what (``audience``), the writer (``writer``) and the locks (``lock``).
"""

from sandbox.transcript.identity import Gathered, config_digest, each_game_once, identity_of
from sandbox.transcript.lock import Busy, folder_lock, transcript_lock
from sandbox.transcript.reader import (
    GameLog,
    iter_lines,
    load_transcript,
    read_game,
    read_transcript,
)
from sandbox.transcript.record import EventRow, Transcript, agent_label
from sandbox.transcript.schema import (
    SCHEMA_VERSION,
    CallRecord,
    ControlLine,
    EventLine,
    OutcomeRecord,
    TranscriptError,
    TranscriptHeader,
    latency_of,
)
from sandbox.transcript.sides import role_group, side_of, sides_of
from sandbox.transcript.writer import TranscriptWriteError, TranscriptWriter, write_in_background

__all__ = [
    "SCHEMA_VERSION",
    "Busy",
    "CallRecord",
    "ControlLine",
    "EventLine",
    "EventRow",
    "GameLog",
    "Gathered",
    "OutcomeRecord",
    "Transcript",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptWriteError",
    "TranscriptWriter",
    "agent_label",
    "config_digest",
    "each_game_once",
    "folder_lock",
    "identity_of",
    "iter_lines",
    "latency_of",
    "load_transcript",
    "read_game",
    "read_transcript",
    "role_group",
    "side_of",
    "sides_of",
    "transcript_lock",
    "write_in_background",
]
