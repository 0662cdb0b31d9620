"""Keeping credentials out of transcripts, call records, logs and error messages.

Keys are only ever read from the environment. Anything an LLM seat records is
passed through :func:`redact`, which removes every secret-looking environment
value and the usual key shapes, even when a provider echoes a key back, whole
or masked (``sk-TOPSE****123`` still shows a known key's first and last
characters, so such a token is masked too).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

MASK = "[redacted]"
SECRET_NAME = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
# Bearer headers and common provider key prefixes, in case a key came from elsewhere.
KEY_PREFIXES = ("sk", "pk", "rk", "gsk", "xai", "hf")
KEY_SHAPES = re.compile(
    rf"(Bearer\s+)[^\s\"',]+|\b({'|'.join(KEY_PREFIXES)})[-_][A-Za-z0-9_\-]{{8,}}", re.IGNORECASE
)
KEY_PREFIX = re.compile(rf"({'|'.join(KEY_PREFIXES)})[-_]", re.IGNORECASE)
# Text that can hold a KEY_SHAPES match contains one of these (after casefold).
# Checking them first skips the regex over long prompts (~0.5 ms per 12 kB).
SHAPE_HINTS = ("bearer", *(p + sep for p in KEY_PREFIXES for sep in "-_"))
# A token with a run of masking characters inside, as providers echo keys:
# visible head, the run, visible tail.
MASKED_TOKEN = re.compile(r"([A-Za-z0-9_\-]*)(?:[*•]{3,}|\.{3,}|…+)([A-Za-z0-9_\-]*)")
MASK_HINTS = ("***", "•••", "...", "…")
MIN_SECRET_LEN = 8
MIN_ECHO_EDGE = 3  # shortest head/tail taken as a piece of a known secret


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """Secret-looking environment values plus ``extra``, longest first."""
    found = {v for v in extra if v and len(v) >= MIN_SECRET_LEN}
    found.update(
        value
        for name, value in os.environ.items()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LEN
    )
    return sorted(found, key=len, reverse=True)


def redact_text(text: str, secrets: Iterable[str]) -> str:
    known = list(secrets)
    for secret in known:
        text = text.replace(secret, MASK)
    if any(hint in text for hint in MASK_HINTS):
        text = MASKED_TOKEN.sub(lambda m: _masked_echo(m, known), text)
    folded = text.casefold()
    if any(hint in folded for hint in SHAPE_HINTS):
        text = KEY_SHAPES.sub(lambda m: (m.group(1) or "") + MASK, text)
    return text


def _masked_echo(match: re.Match[str], secrets: Sequence[str]) -> str:
    """MASK for a masked token that shows a key's shape or a known secret's
    first or last characters; the token unchanged otherwise."""
    head, tail = match.group(1), match.group(2)
    if KEY_PREFIX.match(head):
        return MASK
    for secret in secrets:
        if len(head) >= MIN_ECHO_EDGE and secret.startswith(head):
            return MASK
        if len(tail) >= MIN_ECHO_EDGE and secret.endswith(tail):
            return MASK
    return match.group(0)


def redact(obj: Any, secrets: Iterable[str]) -> Any:
    """A copy of ``obj`` (JSON-like) with every string redacted."""
    known = list(secrets)
    if isinstance(obj, str):
        return redact_text(obj, known)
    if isinstance(obj, dict):
        return {k: redact(v, known) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact(v, known) for v in obj]
    return obj
