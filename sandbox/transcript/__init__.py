"""Transcripts: one append-only JSONL file per game (docs/transcript.md).

The writer and the one typed reader live in :mod:`sandbox.transcript.jsonl`;
this package is the import path every other module uses.
"""

from sandbox.transcript.jsonl import (
    SCHEMA_VERSION,
    CallRecord,
    ControlLine,
    EventLine,
    GameLog,
    OutcomeRecord,
    Transcript,
    TranscriptError,
    TranscriptHeader,
    TranscriptWriter,
    iter_lines,
    load,
    load_transcript,
    write_in_background,
)

__all__ = [
    "SCHEMA_VERSION",
    "CallRecord",
    "ControlLine",
    "EventLine",
    "GameLog",
    "OutcomeRecord",
    "Transcript",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptWriter",
    "iter_lines",
    "load",
    "load_transcript",
    "write_in_background",
]
