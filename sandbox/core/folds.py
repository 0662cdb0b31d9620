"""Helpers for writing a variant's view fold (:class:`sandbox.core.variant.ViewFold`):
public items flagged, snapshots detached from the fold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sandbox.core.events import Event
from sandbox.core.variant import HistoryItem


def marked_public(item: HistoryItem, event: Event) -> HistoryItem:
    """``item`` flagged ``public`` when its event is visible to every seat."""
    return replace(item, public=True) if event.visibility().scope == "public" else item


def detached(value: Any) -> Any:
    """A copy of plain nested data (dicts, lists) so a snapshot never changes
    when the fold that produced it goes on folding."""
    if isinstance(value, dict):
        return {k: detached(v) for k, v in value.items()}
    if isinstance(value, list):
        return [detached(v) for v in value]
    return value
