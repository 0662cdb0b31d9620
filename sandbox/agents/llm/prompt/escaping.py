"""What player text can do in a prompt: nothing but be quoted.

Players' words reach the prompt only as JSON-encoded strings on one line after
a fixed "Seat N said:" prefix, and every character that could end a line or
forge the referee's marker is escaped inside that encoding; labels written by
templates are flattened to one line with the marker's brackets replaced. So
the referee's announcements are the only lines that start with the marker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from sandbox.core.words import one_line

# The referee's marker. Its brackets are escaped in every JSON-encoded value
# (see safe_json), so no speech or quoted value can ever contain it.
MARK_OPEN, MARK_CLOSE = "⟦", "⟧"
REFEREE_MARK = {"en": "⟦REFEREE⟧", "zh": "⟦裁判⟧"}

# Characters escaped inside JSON strings on top of json.dumps' own escapes:
# line breaks that json.dumps(ensure_ascii=False) leaves raw (NEL, LS, PS, C1
# controls), invisible/bidi controls that could disguise text, and the marker.
_ESCAPED = re.compile("[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff⟦⟧]")


def referee_mark(language: str) -> str:
    """The marker that opens the referee's lines in ``language`` (English if unknown)."""
    return REFEREE_MARK.get(language, REFEREE_MARK["en"])


def safe_json(value: Any) -> str:
    """JSON on one line, readable Unicode, with line breaks and the marker escaped.

    Used as the ``json`` filter (instead of ``|tojson``, which HTML-escapes).
    """
    text = json.dumps(plain(value), ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plain(value: Any) -> Any:
    """Nested mappings and sequences as JSON-ready dicts and lists (sets sorted,
    so the same facts always read the same)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [plain(v) for v in items]
    return value


def scrub(text: Any) -> str:
    """Template-made label text on one line, never containing the marker."""
    return one_line(text).replace(MARK_OPEN, "(").replace(MARK_CLOSE, ")")
