"""OD-7 at the terminal: an open day's ask as a chat line. The person types a
message and Enter posts it at once (it closes the round under way, as a
person's message does); Enter alone waits this round; ``+`` asks every field
of the message (its claim, accusations and vouches too)."""

from __future__ import annotations

from typing import Any

from sandbox.core.discussion import SPEAK
from sandbox.core.requests import DecisionRequest, Text

FULL_FORM = "+"


def is_ask(request: DecisionRequest) -> bool:
    """An open day's ask with a text to type (every variant's message has one)."""
    names = {f.name for f in request.fields}
    return SPEAK in names and text_field(request) is not None


def text_field(request: DecisionRequest) -> str | None:
    return next((f.name for f in request.fields if isinstance(f, Text)), None)


def prompt(request: DecisionRequest) -> str:
    return (
        f"{request.instruction}\nType your message and press Enter to post it now; "
        f"Enter alone waits this round; '{FULL_FORM}' adds a claim, accusations or vouches."
    )


def answer_of(request: DecisionRequest, line: str) -> dict[str, Any] | None:
    """The answer a typed line gives: a wait (empty), a post of the line, or None
    for the full form (``+``)."""
    text = line.strip()
    if text == FULL_FORM:
        return None
    if not text:
        return {SPEAK: False}
    name = text_field(request)
    assert name is not None  # is_ask
    return {SPEAK: True, name: text}
