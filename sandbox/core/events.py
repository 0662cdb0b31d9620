"""Typed, serialisable game events.

Every change to a game is an event. An event is a frozen dataclass whose
``kind`` names it in transcripts and whose ``visibility()`` says who may see it.
State is the fold of the events; a seat's view is the fold of the events it may
see. Payload fields hold only JSON-like values (int, str, bool, None, tuples
and string-keyed mappings of those) so that events round-trip through JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from sandbox.core.visibility import PUBLIC, REFEREE, Visibility, only

_EVENT_TYPES: dict[str, type[Event]] = {}

JSON = Any  # JSON-like value; kept loose on purpose for payloads


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """Base of every event. Subclasses set ``kind`` and may override ``visibility``."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls) -> None:
        # No super() call: dataclass(slots=True) rebuilds classes, which breaks
        # zero-argument super here; object.__init_subclass__ does nothing anyway.
        if not cls.kind:
            return
        known = _EVENT_TYPES.get(cls.kind)
        # dataclass(slots=True) rebuilds the class, so the same class may arrive twice.
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise TypeError(f"event kind {cls.kind!r} registered twice")
        _EVENT_TYPES[cls.kind] = cls

    def visibility(self) -> Visibility:
        return PUBLIC

    def to_json(self) -> dict[str, JSON]:
        data = {f.name: thaw(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.kind, "vis": self.visibility().to_json(), "data": data}


def event_from_json(raw: Mapping[str, JSON]) -> Event:
    """Rebuild an event from its ``to_json`` form (the transcript line's fields)."""
    kind = raw["kind"]
    cls = _EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r} (is its variant registered?)")
    data = {k: freeze(v) for k, v in raw["data"].items()}
    return cls(**data)


def freeze(value: JSON) -> JSON:
    """Lists become tuples, recursively, so payloads compare equal after a round trip."""
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): freeze(v) for k, v in value.items()}
    return value


def thaw(value: JSON) -> JSON:
    """Tuples and mappings become lists and dicts (the JSON form), a copy
    throughout: the inverse of :func:`freeze`."""
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class SeatEvent(Event):
    """An event seen by the seats its field ``seen_by`` names alone: one seat
    (an ``int`` field; ``seat`` unless a subclass names another) or several (a
    ``tuple[int, ...]`` field, e.g. a team's ``members``). The audience is a
    field, so a transcript line rebuilds it."""

    seen_by: ClassVar[str] = "seat"

    def visibility(self) -> Visibility:
        # not a field here: each subclass places the named field among its own
        who: int | tuple[int, ...] = getattr(self, self.seen_by)
        return only(*who) if isinstance(who, tuple) else only(who)


@dataclasses.dataclass(frozen=True, slots=True)
class AudienceEvent(SeatEvent):
    """An event seen by the seats of its ``audience`` field alone (a team, the
    dead): a subclass declares ``audience: tuple[int, ...]`` among its fields."""

    seen_by: ClassVar[str] = "audience"


@dataclasses.dataclass(frozen=True, slots=True)
class RefereeEvent(Event):
    """Bookkeeping, or a sealed record, that the referee alone sees."""

    def visibility(self) -> Visibility:
        return REFEREE


# --------------------------------------------------------------------------
# Core events, shared by every variant.


@dataclasses.dataclass(frozen=True, slots=True)
class DecisionMade(SeatEvent):
    """A seat's accepted (or fallback) answer to an open request.

    Visible to that seat alone: sealed decisions stay sealed until the variant
    announces them. ``note`` is the seat's private reasoning, never shown to others.
    """

    kind: ClassVar[str] = "core.decision"
    seat: int
    request_id: str
    decision: str
    payload: Mapping[str, JSON]
    note: str = ""
    fallback: bool = False
    fallback_reason: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class StepResolved(RefereeEvent):
    """Bookkeeping: every request of a step was answered and resolved."""

    kind: ClassVar[str] = "core.step"
    step: int


@dataclasses.dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The final, public result of a game."""

    kind: ClassVar[str] = "core.game_ended"
    reason: str
    results: Mapping[str, str]  # seat number (as text) -> "win" | "lose" | "draw"
    summary: str


# --------------------------------------------------------------------------
# Table talk (issue 38): rulings off by default, the same events in every
# variant that offers them. Both are player text, seen only by ``audience``
# (and the referee, so a referee spectator too); the audience is fixed when the
# message is said, so a transcript line rebuilds it.


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerText(Event):
    """Player text: what seat ``seat`` said on day (or night) ``day``, as it said
    it. Both messages below open with these fields, in this order (a transcript
    line's and a positional call's); a variant's speech event may too."""

    day: int
    seat: int
    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class TeamMessage(PlayerText, AudienceEvent):
    """A team's private message at night (Killer: the killers before their
    opinions, ``killer_chat``): ``team`` names the team, ``audience`` its living
    members when the message is said. An empty text passes."""

    kind: ClassVar[str] = "talk.team"
    team: str
    audience: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class GraveyardOpened(AudienceEvent):
    """Graveyard talk: the night's ask of the dead (``audience``), for a variant
    whose state holds no rulings (Four Factions): its referee announces the ask,
    to the dead alone, at nightfall."""

    kind: ClassVar[str] = "talk.graveyard_opened"
    day: int
    audience: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class GraveyardMessage(PlayerText, AudienceEvent):
    """Graveyard talk (``graveyard_chat``): a dead seat's message, seen by the
    seats dead when it is said (``audience``, the speaker among them) and never
    by a living seat. An empty text passes."""

    kind: ClassVar[str] = "talk.graveyard"
    audience: tuple[int, ...]


# --------------------------------------------------------------------------
# Open discussion (docs/rules-open-discussion.md): the events of an open day,
# the same for every variant that holds one (sandbox.core.discussion makes
# them; the variant folds them with ``discussion.OpenDay.apply``). A message
# itself is the variant's own speech event. Their kinds share the ``discussion.``
# prefix: they are game events a page shows, not the referee's bookkeeping.


@dataclasses.dataclass(frozen=True, slots=True)
class OpenDayStarted(Event):
    """OD-4, OD-5: an open day begins. ``seats``: the living seats at its start;
    the budget is fixed here (``messages_per_day`` already counted from them)."""

    kind: ClassVar[str] = "discussion.opened"
    day: int
    seats: tuple[int, ...]
    messages_per_seat: int
    messages_per_day: int
    quiet_rounds: int


@dataclasses.dataclass(frozen=True, slots=True)
class RoundEvent(Event):
    """OD-5: an event of round ``round`` of open day ``day``. Every event below
    opens with these fields, in this order (a transcript line's and a positional
    call's)."""

    day: int
    round: int


@dataclasses.dataclass(frozen=True, slots=True)
class RoundAnswers(RoundEvent, RefereeEvent):
    """OD-5, OD-10: how each seat asked in a round answered, every list in seat
    order (never in the order the answers arrived). Referee only: a wait or a
    fallback is not public, and the posts show as messages once accepted."""

    kind: ClassVar[str] = "discussion.answers"
    posted: tuple[int, ...]
    waited: tuple[int, ...]
    fell_back: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class OrderDrawn(RoundEvent):
    """OD-5: two or more messages were posted in a round; ``order`` lists the
    seats whose message is accepted, in the order the seeded draw gave."""

    kind: ClassVar[str] = "discussion.order"
    order: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class MessagesCut(RoundEvent, RefereeEvent):
    """OD-5: the messages that would have passed ``messages_per_day``, in drawn
    order; not accepted, so nobody but the referee learns they were posted."""

    kind: ClassVar[str] = "discussion.cut"
    seats: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RoundClosed(RoundEvent):
    """OD-5: a round is over; ``accepted``: the seats whose message was
    accepted, in order (empty: a quiet round, OD-6 b)."""

    kind: ClassVar[str] = "discussion.round"
    accepted: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class OpenDayEnded(RoundEvent):
    """OD-6: the open day ends after ``round``; ``reason`` is the first end that
    held (``discussion.DayEnd``): ``day_cap``, ``quiet`` or ``no_budget``."""

    kind: ClassVar[str] = "discussion.closed"
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class RoundInterjected(RoundEvent):
    """OD-7: a person's message closed round ``round`` at once; it is the round's
    first message (the AI messages already given follow in drawn order)."""

    kind: ClassVar[str] = "discussion.interjection"
    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class AsksWithdrawn(RoundEvent, RefereeEvent):
    """OD-7: the asks still unanswered when a person's message closed the round,
    in seat order; withdrawn (no budget spent) and asked again in the next round.
    Referee only, as a wait is: when a seat answers is nobody's to learn."""

    kind: ClassVar[str] = "discussion.withdrawn"
    seats: tuple[int, ...]
