"""The one error every session operation raises for a session that cannot go on.

A transcript that cannot be read is not a session's error but the transcript's:
its reader raises :class:`~sandbox.transcript.TranscriptError` with one line.
"""

from __future__ import annotations


class SessionError(Exception):
    """A session that cannot go on (bad fork point, mismatch, a refused change). One line."""
