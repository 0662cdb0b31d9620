"""The one error every session operation raises, the transcript opener, and how
any error message is put on one line."""

from __future__ import annotations

from pathlib import Path

from sandbox.transcript import Transcript, TranscriptError, load


class SessionError(Exception):
    """A session that cannot go on (bad transcript, bad fork point, mismatch). One line."""


def open_transcript(path: Path) -> Transcript:
    """Load, turning every reading problem into a one-line SessionError."""
    if path.is_dir():
        raise SessionError(f"{path}: is a directory, not a transcript file")
    try:
        return load(path)
    except TranscriptError as err:
        raise SessionError(str(err)) from None
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as err:
        raise SessionError(f"{path}: not a readable transcript ({err})") from None
