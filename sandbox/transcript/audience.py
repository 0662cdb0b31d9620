"""Who could see what in a transcript: each event's recorded visibility, the
events one seat saw, and where the variant's seat views place each event (its
day and phase).

The viewer draws a seat's story from these, and stats dates each belief probe
with them, so both read visibility the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandbox.core.events import Event
from sandbox.core.variant import HistoryItem, Variant
from sandbox.core.visibility import Visibility
from sandbox.transcript.record import Transcript


def vis_of(raw: object) -> tuple[int, ...] | str:
    """A line's recorded visibility; an unreadable one counts as referee-only."""
    try:
        vis = Visibility.from_json(raw)
    except ValueError:
        return "referee"
    if vis.scope == "seats":
        return tuple(sorted(vis.seats))
    return vis.scope


def visible_pairs(transcript: Transcript, seat: int | None) -> list[tuple[int, Event]]:
    """(seq, event) pairs the audience may see, judged by each line's recorded visibility."""
    pairs: list[tuple[int, Event]] = []
    for seq, (event, raw) in enumerate(zip(transcript.events, transcript.visibility, strict=True)):
        vis = vis_of(raw)
        if seat is None or vis == "public" or (isinstance(vis, tuple) and seat in vis):
            pairs.append((seq, event))
    return pairs


def seat_numbers(transcript: Transcript) -> list[int]:
    """The game's seats, in order (from the header's roles)."""
    roles = transcript.header.get("roles") or {}
    return sorted(int(s) for s in roles)


def history_index(
    variant: Variant[Any], transcript: Transcript, seats: Sequence[int]
) -> dict[int, HistoryItem]:
    """seq -> how a seat's view presents that event (day, phase, speech)."""
    index: dict[int, HistoryItem] = {}
    for seat in seats:
        view = variant.build_view(seat, visible_pairs(transcript, seat))
        for item in view.history:
            index.setdefault(item.seq, item)
    return index
