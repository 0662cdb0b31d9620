"""A tiny variant whose whole game is one open day (sandbox.core.discussion):
the seats talk in ask rounds until a budget ends the day, and every seat draws.
It shows a variant's share of the wiring (its message field and check, the
event a message becomes, the fold) and lets the tests drive the real referee.
A message must not be empty (the toy's own message check, rule "T-9")."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from sandbox.core import discussion
from sandbox.core.discussion import DayEnd, OpenDay, OpenDayRulings
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import Event
from sandbox.core.requests import DecisionRequest, Payload, Text
from sandbox.core.variant import (
    HistoryItem,
    Outcome,
    Result,
    Rules,
    SeatView,
    Variant,
    VariantInfo,
)


class OpenToyConfig(OpenDayRulings):
    """The OD-4 rulings, included by subclassing, and the toy's own key."""

    seats: int = 4


@dataclass(frozen=True, slots=True)
class Message(Event):
    """An accepted message: public (OD-2)."""

    kind: ClassVar[str] = "opentoy.message"
    seat: int
    text: str


@dataclass
class OpenToyState:
    seats: int
    day: OpenDay = field(default_factory=OpenDay)


class OpenToyPhase(StrEnum):
    DAY = "day"


TEXT = Text("text", "your message", 200)
OPEN_TOY_INFO = VariantInfo("opentoy", "Open toy", 2, 9, (), (), {}, DayEnd, OpenToyPhase)


def living(state: OpenToyState) -> range:
    return range(1, state.seats + 1)  # nobody dies in the toy


def check_message(payload: Payload) -> None:
    if not str(payload.get("text", "")).strip():
        raise IllegalDecision("T-9", "A message must say something; wait instead.")


def message(seat: int, payload: Payload) -> Sequence[Event]:
    return (Message(seat, str(payload.get("text", ""))),)


class OpenToy(Variant[OpenToyState, OpenToyConfig], Rules[OpenToyState, OpenToyConfig]):
    info = OPEN_TOY_INFO
    config_model = OpenToyConfig

    def __init__(self) -> None:
        self.rules = self

    def seat_count(self, config: OpenToyConfig) -> int:
        return config.seats

    def initial_state(self, config: OpenToyConfig) -> OpenToyState:
        return OpenToyState(config.seats)

    def setup(self, config: OpenToyConfig, rng: random.Random) -> Iterator[Event]:
        yield discussion.open_day(1, range(1, config.seats + 1), config)

    def apply(self, state: OpenToyState, event: Event) -> None:
        state.day.apply(event)

    def open_requests(self, state: OpenToyState, step: int) -> tuple[DecisionRequest, ...]:
        return discussion.ask_requests(
            state.day,
            living(state),
            step,
            "post",
            lambda seat: f"Round {state.day.round}: post a message now, or wait.",
            lambda seat: (TEXT,),
        )

    def check(self, state: OpenToyState, request: DecisionRequest, payload: Payload) -> None:
        discussion.check_answer(
            state.day, request.seat, payload, living(state), check_message=check_message
        )

    def fallback(self, state: OpenToyState, request: DecisionRequest) -> Payload:
        return discussion.fallback()

    def resolve(
        self,
        state: OpenToyState,
        config: OpenToyConfig,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        yield from discussion.close_round(state.day, living(state), answers, rng, message)

    def outcome(self, state: OpenToyState) -> Outcome | None:
        if state.day.ended is None:
            return None
        results = {seat: Result.DRAW.value for seat in living(state)}
        return Outcome(state.day.ended, results, f"The day ended: {state.day.ended.value}.")

    def roles(self, state: OpenToyState) -> Mapping[int, str]:
        return {seat: "talker" for seat in living(state)}

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        day = OpenDay()  # folded from the public events the seat saw
        history: list[HistoryItem] = []
        for seq, event in events:
            day.apply(event)
            speaker = event.seat if isinstance(event, Message) else None
            speech = event.text if isinstance(event, Message) else None
            history.append(HistoryItem(seq, event.kind, day.day, "day", speaker, speech))
        public: dict[str, Any] = {"round": day.round, "left": day.left(seat), "over": not day.open}
        return SeatView(self, seat, {}, public, tuple(history))

    def rules_text(self, config: OpenToyConfig, language: str = "en") -> str:
        return "Talk in rounds until the budget ends the day."
