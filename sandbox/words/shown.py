"""An answer's player text as the other seats will read it (a variant's
``VariantWords.shown``): what a person's page shows before they confirm, so
that the referee never changes their words silently (issue 38 item 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.variant import SeatView


def shown_words(view: SeatView, decision: str, payload: Mapping[str, Any]) -> dict[str, str]:
    """Answer field -> its text as the other seats will read it, for the fields
    the referee will change under this game's rulings; empty if none will."""
    words = view.variant.words()
    shown = words.shown.get(decision) if words is not None else None
    if shown is None:
        return {}
    return {k: v for k, v in shown(payload, view.public).items() if payload.get(k) != v}
