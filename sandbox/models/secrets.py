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
import string
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
# Providers echo a key as a token with a run of masking characters inside:
# visible head, the run, visible tail (sk-TOPSE****123).
MASK_RUNS = ("***", "•••", "...", "…")
TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")
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
    if any(run in text for run in MASK_RUNS):
        text = _mask_echoes(text, known)
    folded = text.casefold()
    if any(hint in folded for hint in SHAPE_HINTS):
        text = KEY_SHAPES.sub(lambda m: (m.group(1) or "") + MASK, text)
    return text


def _mask_echoes(text: str, secrets: Sequence[str]) -> str:
    """Every masked token that is an echo of a key, replaced by MASK. Found with
    str.find, not a regex: prompts are long and a scanning regex costs ~0.5 ms."""
    pieces: list[str] = []
    done = 0
    for start, end in _mask_runs(text):
        if start < done:
            continue
        head_start, tail_end = start, end
        while head_start > done and text[head_start - 1] in TOKEN_CHARS:
            head_start -= 1
        while tail_end < len(text) and text[tail_end] in TOKEN_CHARS:
            tail_end += 1
        if _is_echo(text[head_start:start], text[end:tail_end], secrets):
            pieces += [text[done:head_start], MASK]
            done = tail_end
    return "".join([*pieces, text[done:]])


def _mask_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of one masking character, in text order."""
    runs: list[tuple[int, int]] = []
    for hint in MASK_RUNS:
        at = text.find(hint)
        while at != -1:
            end = at + len(hint)
            while end < len(text) and text[end] == hint[0]:
                end += 1
            runs.append((at, end))
            at = text.find(hint, end)
    return sorted(runs)


def _is_echo(head: str, tail: str, secrets: Sequence[str]) -> bool:
    """A key's shape before the run, or a known secret's first or last characters."""
    if KEY_PREFIX.match(head):
        return True
    return any(
        (len(head) >= MIN_ECHO_EDGE and secret.startswith(head))
        or (len(tail) >= MIN_ECHO_EDGE and secret.endswith(tail))
        for secret in secrets
    )


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
