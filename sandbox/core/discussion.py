"""Open discussion: the machinery of an open day that every variant calls from
its own requests and resolution (the ruling, OD-1 … OD-10, is restated in
docs/rules-open-discussion.md).

In an open day the living seats are asked in rounds whether to post a message
now or wait (OD-5). A round's answers are sealed; when it closes, two or more
messages are ordered by a seeded draw, accepted in that order up to the day's
cap, and the phase ends on a budget (OD-6). The variant keeps what is its own:
the fields a message carries and their checks, and the event a message becomes
(a callback); this module never names a variant.

OD-7 (a person at the table) rides on the same rounds: a runner on the wall
clock records a person's message as an interjection (:func:`interjection`) and
the asks still open then as withdrawn (:func:`withdrawn`); :func:`close_round`
reads those marks from the recorded answers, so a replay needs no clock.

Pure: no I/O; every draw comes from the generator the referee hands the step.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import (
    AsksWithdrawn,
    Event,
    MessagesCut,
    OpenDayEnded,
    OpenDayStarted,
    OrderDrawn,
    RoundAnswers,
    RoundClosed,
    RoundInterjected,
)
from sandbox.core.requests import Choice, DecisionRequest, Payload, request_id
from sandbox.core.requests import Field as RequestField
from sandbox.core.visibility import PUBLIC

OPEN = "open"  # OD-1: the value of a game file's `discussion` ruling that opens the day
ASK_RULE = "OD-5"  # the rule an ask cites (a variant may add its own, e.g. its speech rule)
REFUSAL = "OD-9"
SPEAK = "speak"  # OD-5: the answer's field that posts (true) or waits (false)
# OD-8: marks a fallback's payload. Never a request field, so a seat's own answer
# cannot carry it (the shape check refuses unknown fields).
FELL_BACK = "fell_back"
# OD-7: the marks a runner with people records on a round's answers, never request
# fields either: a person's message that closed the round (its first), and an ask
# still open then (withdrawn: no budget spent, asked again in the next round).
INTERJECTED = "interjected"
WITHDRAWN = "withdrawn"
PERSON_RULE = "OD-7"
PER_SEAT, QUIET_ROUNDS, PER_LIVING_SEAT = 3, 1, 3  # OD-4 defaults

SPEAK_FIELD = Choice(
    SPEAK,
    (True, False),
    "true posts the message in the other fields now; false waits (they are then ignored)",
)


class DayEnd(StrEnum):
    """OD-6: why an open day ended, in the order the end check tries them."""

    DAY_CAP = "day_cap"  # (a) messages_per_day messages accepted
    QUIET = "quiet"  # (b) quiet_rounds rounds in a row without an accepted message
    NO_BUDGET = "no_budget"  # (c) no living seat has budget left


@dataclass(frozen=True, slots=True)
class Budget:
    """OD-4 as it applies to one day: ``per_day`` already counted from the living."""

    per_seat: int
    per_day: int
    quiet_rounds: int


class OpenDayRulings(BaseModel):
    """OD-4's rulings, for a variant's config to include (subclass it): keys of
    a game file's ``[rules]``, integers ≥ 1."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages_per_seat: StrictInt = Field(
        PER_SEAT, ge=1, description="OD-4: messages one seat may post in an open day"
    )
    messages_per_day: StrictInt | None = Field(
        None,
        ge=1,
        description="OD-4: messages accepted in all in an open day "
        "(absent: 3 × the living seats at the day's start)",
    )
    quiet_rounds: StrictInt = Field(
        QUIET_ROUNDS,
        ge=1,
        description="OD-4: rounds in a row without a message that end an open day",
    )

    def budget(self, living: int) -> Budget:
        """The budget of a day that starts with ``living`` living seats (OD-4:
        the default day cap does not depend on ``messages_per_seat``)."""
        per_day = self.messages_per_day
        if per_day is None:
            per_day = PER_LIVING_SEAT * living
        return Budget(self.messages_per_seat, per_day, self.quiet_rounds)


@dataclass(slots=True)
class OpenDay:
    """The open day under way, folded from its public events alone (so a seat's
    view may keep one too). Empty (``budget`` None) before the first open day."""

    day: int = 0
    seats: tuple[int, ...] = ()
    budget: Budget | None = None
    spoken: dict[int, int] = field(default_factory=dict)  # seat -> accepted messages
    total: int = 0  # accepted messages in all
    quiet_run: int = 0  # rounds in a row, up to the last closed, without one
    closed: int = 0  # rounds closed
    ended: DayEnd | None = None

    @property
    def open(self) -> bool:
        return self.budget is not None and self.ended is None

    @property
    def round(self) -> int:
        """The number of the round under way (the day opens with round 1)."""
        return self.closed + 1

    def left(self, seat: int) -> int:
        """Messages ``seat`` may still post today (OD-4)."""
        if self.budget is None:
            return 0
        return max(0, self.budget.per_seat - self.spoken.get(seat, 0))

    def apply(self, event: Event) -> None:
        """Fold one event; every other kind is ignored (a variant forwards all)."""
        if isinstance(event, OpenDayStarted):  # a new day: nothing carries over
            self.day, self.seats = event.day, event.seats
            self.budget = Budget(
                event.messages_per_seat, event.messages_per_day, event.quiet_rounds
            )
            self.spoken, self.total, self.quiet_run, self.closed = {}, 0, 0, 0
            self.ended = None
        elif isinstance(event, RoundClosed):
            for seat in event.accepted:
                self.spoken[seat] = self.spoken.get(seat, 0) + 1
            self.total += len(event.accepted)
            self.quiet_run = 0 if event.accepted else self.quiet_run + 1
            self.closed += 1
        elif isinstance(event, OpenDayEnded):
            self.ended = DayEnd(event.reason)

    def copy(self) -> OpenDay:
        return dataclasses.replace(self, spoken=dict(self.spoken))


# ------------------------------------------------------------------ asking


def open_day(day: int, living: Iterable[int], rulings: OpenDayRulings) -> OpenDayStarted:
    """The event that opens day ``day``'s discussion (OD-4: the cap counts the
    seats living now)."""
    seats = tuple(sorted(living))
    budget = rulings.budget(len(seats))
    return OpenDayStarted(day, seats, budget.per_seat, budget.per_day, budget.quiet_rounds)


def asked_seats(state: OpenDay, living: Iterable[int]) -> tuple[int, ...]:
    """OD-5: every living seat with budget left, in seat order — even when fewer
    messages remain under the day's cap than seats are asked. None once ended."""
    if not state.open:
        return ()
    return tuple(seat for seat in sorted(living) if state.left(seat) > 0)


def ask_fields(message_fields: Sequence[RequestField]) -> tuple[RequestField, ...]:
    """An ask's fields: ``speak`` first, then the variant's message fields, made
    optional so that a wait may be only ``{"speak": false}``."""
    return (SPEAK_FIELD, *(dataclasses.replace(f, optional=True) for f in message_fields))


def ask_requests(
    state: OpenDay,
    living: Iterable[int],
    step: int,
    decision: str,
    instruction: Callable[[int], str],
    message_fields: Callable[[int], Sequence[RequestField]],
    rule: str = ASK_RULE,
) -> tuple[DecisionRequest, ...]:
    """The round's asks (OD-5): one sealed request per seat asked, its id naming
    the step, the seat and ``decision``; ``instruction`` and ``message_fields``
    give each seat's own."""
    return tuple(
        DecisionRequest(
            request_id(step, seat, decision),
            seat,
            decision,
            rule,
            instruction(seat),
            ask_fields(message_fields(seat)),
        )
        for seat in asked_seats(state, living)
    )


def posts(payload: Payload) -> bool:
    """Whether an answer posts a message (anything but ``speak = true`` waits)."""
    return payload.get(SPEAK) is True


def fell_back(payload: Payload) -> bool:
    """Whether an answer is the referee's fallback (OD-8), not the seat's own wait."""
    return payload.get(FELL_BACK) is True


def fallback() -> dict[str, Any]:
    """OD-8: a seat whose ask timed out or failed waits, marked as a fallback."""
    return {SPEAK: False, FELL_BACK: True}


def interjected(payload: Payload) -> bool:
    """Whether an answer is a person's message that closed its round (OD-7)."""
    return payload.get(INTERJECTED) is True


def was_withdrawn(payload: Payload) -> bool:
    """Whether an answer stands for an ask withdrawn when a person's message
    closed the round (OD-7): no answer, no budget spent."""
    return payload.get(WITHDRAWN) is True


def interjection(payload: Payload) -> dict[str, Any]:
    """OD-7: a checked post marked as a person's interjection. Only a message
    interjects (a person's wait is an ordinary answer to the round's ask)."""
    if not posts(payload):
        raise IllegalDecision(PERSON_RULE, "Only a message closes the round; a wait answers it.")
    return {**payload, INTERJECTED: True}


def unmarked(payload: Payload) -> dict[str, Any]:
    """A recorded interjection's payload as the person sent it (the mark taken off)."""
    return {name: value for name, value in payload.items() if name != INTERJECTED}


def withdrawn() -> dict[str, Any]:
    """OD-7: the recorded answer of an ask withdrawn unanswered: a wait that is
    neither the seat's own nor a fallback."""
    return {SPEAK: False, WITHDRAWN: True}


def check_answer(
    state: OpenDay,
    seat: int,
    payload: Payload,
    living: Iterable[int],
    *,
    answered: Collection[int] = (),
    check_message: Callable[[Payload], None] | None = None,
) -> None:
    """OD-9: refuse an answer after the phase ended, a second answer in a round
    (``answered``: the seats that answered this round already), a post beyond the
    seat's budget or an answer from a seat not asked; then, for a post, the
    variant's own checks of the message (``check_message``, OD-2). Raises
    :class:`IllegalDecision`; nothing changes either way."""
    if not state.open:
        raise IllegalDecision(REFUSAL, f"Day {state.day}'s open discussion is over.")
    if seat in answered:
        raise IllegalDecision(REFUSAL, f"Seat {seat} has already answered round {state.round}.")
    if posts(payload) and state.left(seat) == 0:
        per_seat = state.budget.per_seat if state.budget else 0
        raise IllegalDecision(
            REFUSAL,
            f"Seat {seat} has posted its {per_seat} messages today; it may only wait.",
            {SPEAK: [False]},
        )
    if seat not in asked_seats(state, living):
        raise IllegalDecision(REFUSAL, f"Seat {seat} is not asked in round {state.round}.")
    if posts(payload) and check_message is not None:
        check_message(payload)


# ------------------------------------------------------------------ closing


def draw_order(posted: Iterable[int], rng: random.Random) -> tuple[int, ...]:
    """OD-5: the order of a round's messages, drawn from the step's seeded
    generator over the posting seats taken in seat order (so the draw depends
    on the seed and on who posted, never on who answered first)."""
    seats = sorted(posted)
    rng.shuffle(seats)
    return tuple(seats)


def end_reason(state: OpenDay, living: Iterable[int]) -> DayEnd | None:
    """OD-6, checked when a round closes; the first that holds is the reason."""
    budget = state.budget
    if budget is None:
        return None
    if state.total >= budget.per_day:
        return DayEnd.DAY_CAP
    if state.quiet_run >= budget.quiet_rounds:
        return DayEnd.QUIET
    if all(state.left(seat) == 0 for seat in living):
        return DayEnd.NO_BUDGET
    return None


def _public_message(seat: int, made: Iterable[Event]) -> list[Event]:
    """OD-2: the events a variant made of an accepted message, the message first
    and public (a variant that hid it would break the ruling: refused loudly)."""
    events = list(made)
    if not events or events[0].visibility() != PUBLIC:
        raise ValueError(f"seat {seat}'s accepted message must open with a public event")
    return events


def _interjecting(
    state: OpenDay, asked: Sequence[int], answers: Mapping[int, Payload]
) -> int | None:
    """OD-7: the seat whose message closed the round, if one did; withdrawn asks
    only with it, and one interjection at most (else the record was not played)."""
    people = [seat for seat in asked if interjected(answers[seat])]
    if len(people) > 1:
        raise IllegalDecision(PERSON_RULE, f"Round {state.round} has two interjections {people}.")
    if not people and any(was_withdrawn(answers[seat]) for seat in asked):
        raise IllegalDecision(
            PERSON_RULE, f"Round {state.round} withdraws asks but no message closed it."
        )
    return people[0] if people else None


def close_round(
    state: OpenDay,
    living: Iterable[int],
    answers: Mapping[int, Payload],
    rng: random.Random,
    message: Callable[[int, Payload], Iterable[Event]],
) -> list[Event]:
    """The events that close the round under way from every asked seat's answer
    (OD-5, OD-10): the answers in seat order (referee only); when a person's
    message closed the round (OD-7), the asks withdrawn (referee only) and the
    interjection, that message first and the others drawn after it; the draw when two
    or more messages were posted; each accepted message as the events
    ``message(seat, answer)`` makes of it; the messages cut at the day's cap
    (referee only); the round's close; the day's end if one holds (OD-6).

    Nothing here depends on the order of ``answers``. ``state`` is not changed:
    the variant folds the events as the referee applies them."""
    if not state.open:
        raise IllegalDecision(REFUSAL, f"Day {state.day}'s open discussion is over.")
    living = tuple(sorted(living))
    asked = asked_seats(state, living)
    strays = sorted(set(answers) - set(asked))
    if strays:
        raise IllegalDecision(REFUSAL, f"Seats {strays} are not asked in round {state.round}.")
    missing = [seat for seat in asked if seat not in answers]
    if missing:
        raise ValueError(f"round {state.round} closes without the answers of seats {missing}")
    budget = state.budget
    assert budget is not None  # an open day has one
    day, number = state.day, state.round
    person = _interjecting(state, asked, answers)
    gone = tuple(seat for seat in asked if was_withdrawn(answers[seat]))
    posted = tuple(seat for seat in asked if posts(answers[seat]))
    fallbacks = tuple(seat for seat in asked if fell_back(answers[seat]))
    waited = tuple(s for s in asked if s not in posted and s not in fallbacks and s not in gone)
    events: list[Event] = [RoundAnswers(day, number, posted, waited, fallbacks)]
    if person is not None:  # OD-7: the person's message first, the others drawn after it
        if gone:
            events.append(AsksWithdrawn(day, number, gone))
        events.append(RoundInterjected(day, number, person))
        others = tuple(seat for seat in posted if seat != person)
        drawn = draw_order(others, rng) if len(others) >= 2 else others
        order = (person, *drawn)
    else:
        order = draw_order(posted, rng) if len(posted) >= 2 else posted  # one needs no draw
    room = max(0, budget.per_day - state.total)  # ≥ 1 unless a cap end was not folded
    accepted, cut = order[:room], order[room:]
    if len(posted) >= 2:
        events.append(OrderDrawn(day, number, accepted))
    for seat in accepted:
        events.extend(_public_message(seat, message(seat, answers[seat])))
    if cut:
        events.append(MessagesCut(day, number, cut))
    closed = RoundClosed(day, number, accepted)
    events.append(closed)
    after = state.copy()
    after.apply(closed)
    reason = end_reason(after, living)
    if reason is not None:
        events.append(OpenDayEnded(day, number, reason.value))
    return events
