"""The belief probe: which seats a seat is asked about, and with which labels.

One source of truth for the prompt and the answer schema: ``probe_for(view)``
gives both the seats listed in the prompt and the keys of the ``beliefs``
object in the schema, and the labels are the schema's enum.

- Seats: the other **living** seats (a guess about the dead tells nothing about
  the game ahead), minus the seats the viewer already knows for certain from its
  own card (``Variant.research.known_seats``: its known teammates). What a seat learned
  from the referee later (a check's answer, say) is *not* skipped: the answer
  may be partial, and a belief that contradicts it is itself a finding.
- Keys: the seat number as a string (``"2"``); ``"seat_2"`` is accepted too.
- Values: a probability distribution over the variant's labels
  (``Variant.research.belief_labels``, by default its sides), one number in [0, 1] per
  label (``{"<side 1>": 0.7, "<side 2>": 0.2, "<side 3>": 0.1}``); a
  distribution whose sum is within ``SUM_TOLERANCE`` of 1 is normalised, any
  other is dropped (schema.check_beliefs). No ``"unknown"``: an even spread
  says it. A variant without labels is asked for a few words of free text.

Everything comes from the seat's own view, never from the game state.

A probe-only call (``probe_after_speech``) asks the same object with no
decision open: ``probe_request`` is its stand-in request (no fields; the
prompt's question is the ``decisions/belief_probe.j2`` template).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView

UNKNOWN = "unknown"  # the old label probe's "no guess" (still read from old transcripts)
# A distribution is accepted when its numbers sum to 1 within this much, and
# then divided by its sum; further off, it is dropped (documented in
# docs/transcript.md): a model that writes 0.33 three times means thirds, one
# that writes 0.9 three times means nothing we can read.
SUM_TOLERANCE = 0.05
PROBE_DECISION = "belief_probe"  # the stand-in decision of a probe-only call


@dataclass(frozen=True)
class BeliefProbe:
    """The seats asked about and the allowed values (empty ``labels``: free text)."""

    seats: tuple[int, ...]
    labels: tuple[str, ...]

    @property
    def keys(self) -> list[str]:
        return [str(s) for s in self.seats]


def probe_for(view: SeatView) -> BeliefProbe | None:
    """The probe for this view; None when no seat is left to ask about."""
    known = view.variant.research.known_seats(view.private)
    seats = tuple(s for s in living_others(view) if s not in known)
    if not seats:
        return None
    return BeliefProbe(seats, view.variant.research.belief_labels())


def probe_request(seat: int, seq: int) -> DecisionRequest:
    """The stand-in request of a probe-only call made when the transcript holds
    ``seq`` events: no field, so the answer is only the reasoning and beliefs.
    Its id, ``probe:<seq>:<seat>``, is unique in a game and never a referee's."""
    return DecisionRequest(
        id=f"probe:{seq}:{seat}",
        seat=seat,
        decision=PROBE_DECISION,
        rule="-",
        instruction="No decision is open: give only your private beliefs.",
        fields=(),
    )


def normalised(distribution: Mapping[str, float]) -> dict[str, float] | None:
    """The distribution divided by its sum when the sum is 1 within
    SUM_TOLERANCE; None when it is not (or is all zeros)."""
    total = sum(distribution.values())
    if total <= 0 or abs(total - 1.0) > SUM_TOLERANCE + 1e-9:  # 1e-9: float rounding
        return None
    return {label: round(p / total, 6) for label, p in distribution.items()}


def is_living(view: SeatView) -> bool:
    """The viewer is in its view's public ``living`` list (no list: assumed alive)."""
    living = view.public.get("living")
    if isinstance(living, Sequence) and not isinstance(living, str) and living:
        return view.seat in {int(s) for s in living}
    return True


def living_others(view: SeatView) -> list[int]:
    """The other living seats by the view's public ``living`` list; without one,
    every other seat the view names."""
    living = view.public.get("living")
    if isinstance(living, Sequence) and not isinstance(living, str) and living:
        return sorted(int(s) for s in living if int(s) != view.seat)
    return other_seats(view)


def other_seats(view: SeatView) -> list[int]:
    """Seat numbers other than the viewer's, from the view only."""
    found: set[int] = set()
    for key in ("seats", "living", "dead"):
        seats = view.public.get(key)
        if isinstance(seats, Sequence) and not isinstance(seats, str):
            found.update(_seat_number(s) for s in seats)
    found.discard(0)
    if not found:
        found = {h.speaker for h in view.history if h.speaker is not None}
    return sorted(s for s in found if s != view.seat)


def _seat_number(entry: Any) -> int:
    """A seat from a list entry: a number, or a record with a "seat" key (0: none)."""
    if isinstance(entry, Mapping):
        entry = entry.get("seat", 0)
    if isinstance(entry, bool):
        return 0
    if isinstance(entry, int):
        return entry
    return int(entry) if isinstance(entry, str) and entry.isdigit() else 0
