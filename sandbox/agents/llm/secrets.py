"""Keeping credentials out of transcripts, call records, logs and error messages.

Keys are only ever read from the environment. Anything an LLM seat records is
passed through :func:`redact`, which removes every secret-looking environment
value and the usual key shapes, even when a provider echoes a key back.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

MASK = "[redacted]"
SECRET_NAME = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
# Bearer headers and common provider key prefixes, in case a key came from elsewhere.
KEY_SHAPES = re.compile(
    r"(Bearer\s+)[^\s\"',]+|\b(sk|pk|rk|gsk|xai|hf)[-_][A-Za-z0-9_\-]{8,}", re.IGNORECASE
)
MIN_SECRET_LEN = 8


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
    for secret in secrets:
        text = text.replace(secret, MASK)
    return KEY_SHAPES.sub(lambda m: (m.group(1) or "") + MASK, text)


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
