"""Helpers for writing a variant's view fold (:class:`sandbox.core.variant.ViewFold`):
public items flagged, a whole history folded, snapshots detached from the fold."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sandbox.core.events import Event
from sandbox.core.variant import HistoryItem, SeatView, ViewFold


def marked_public(item: HistoryItem, event: Event) -> HistoryItem:
    """``item`` flagged ``public`` when its event is visible to every seat."""
    return replace(item, public=True) if event.visibility().scope == "public" else item


def fold_all(fold: ViewFold, events: Sequence[tuple[int, Event]]) -> SeatView:
    """``fold`` fed every (seq, event) pair: ``build_view`` for a variant whose
    view is its incremental fold."""
    for seq, event in events:
        fold.add(seq, event)
    return fold.snapshot()


def detached(value: Any) -> Any:
    """A copy of plain nested data (dicts, lists) so a snapshot never changes
    when the fold that produced it goes on folding."""
    if isinstance(value, dict):
        return {k: detached(v) for k, v in value.items()}
    if isinstance(value, list):
        return [detached(v) for v in value]
    return value
