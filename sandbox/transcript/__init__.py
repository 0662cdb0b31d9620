"""Transcripts: one append-only JSONL file per game (docs/transcript.md).

The line models are in :mod:`~sandbox.transcript.schema`, the writer in
:mod:`~sandbox.transcript.writer`, the one reader in
:mod:`~sandbox.transcript.reader`, file discovery in
:mod:`~sandbox.transcript.files` and who saw what in
:mod:`~sandbox.transcript.audience`; this package is the import path every other
module uses.
"""

from sandbox.transcript.lock import Busy, folder_lock, transcript_lock
from sandbox.transcript.reader import (
    GameLog,
    Lines,
    Transcript,
    iter_lines,
    load,
    load_transcript,
    read_lines,
)
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
from sandbox.transcript.writer import TranscriptWriteError, TranscriptWriter, write_in_background

__all__ = [
    "SCHEMA_VERSION",
    "Busy",
    "CallRecord",
    "ControlLine",
    "EventLine",
    "GameLog",
    "Lines",
    "OutcomeRecord",
    "Transcript",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptWriteError",
    "TranscriptWriter",
    "folder_lock",
    "iter_lines",
    "latency_of",
    "load",
    "load_transcript",
    "read_lines",
    "transcript_lock",
    "write_in_background",
]
