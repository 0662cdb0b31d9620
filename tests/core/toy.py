"""A tiny variant used to test the core: three seats; each round every living
seat secretly picks a number 1-3 (sealed), then the seat with the lowest
unique pick speaks (ordered), and the highest pick is eliminated. Last one wins."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from sandbox.core.events import Event
from sandbox.core.requests import Choice, DecisionRequest, Payload, Text, request_id
from sandbox.core.variant import HistoryItem, Outcome, Rules, SeatView, Variant, VariantInfo
from sandbox.core.visibility import Visibility, only


class ToyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    seats: int = 3
    seat: list[dict[str, Any]] = []


@dataclass(frozen=True, slots=True)
class Secret(Event):
    kind: ClassVar[str] = "toy.secret"
    seat: int
    lucky: int

    def visibility(self) -> Visibility:
        return only(self.seat)


@dataclass(frozen=True, slots=True)
class Picks(Event):
    kind: ClassVar[str] = "toy.picks"
    picks: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Said(Event):
    kind: ClassVar[str] = "toy.said"
    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class Out(Event):
    kind: ClassVar[str] = "toy.out"
    seat: int


@dataclass
class ToyState:
    n: int
    alive: list[int] = field(default_factory=list)
    lucky: dict[int, int] = field(default_factory=dict)
    speaker: int | None = None


class ToyPhase(StrEnum):
    SETUP = "setup"
    DAY = "day"


class ToyEnding(StrEnum):
    LAST_STANDING = "last_standing"


# Roles and decisions left empty: "not known before play" (the optional hooks).
TOY_INFO = VariantInfo("toy", "Toy", 2, 9, (), (), {}, ToyEnding, ToyPhase)


class Toy(Variant[ToyState, ToyConfig], Rules[ToyState, ToyConfig]):
    """A variant and its own rules in one class (small enough for a test)."""

    info = TOY_INFO
    config_model = ToyConfig

    def __init__(self) -> None:
        self.rules = self

    def seat_count(self, config: ToyConfig) -> int:
        return config.seats

    def initial_state(self, config: ToyConfig) -> ToyState:
        return ToyState(self.seat_count(config))

    def setup(self, config: ToyConfig, rng: random.Random) -> Iterator[Event]:
        for s in range(1, self.seat_count(config) + 1):
            yield Secret(s, rng.randint(1, 3))

    def apply(self, state: ToyState, event: Event) -> None:
        if isinstance(event, Secret):
            state.alive.append(event.seat)
            state.lucky[event.seat] = event.lucky
        elif isinstance(event, Picks):
            counts: dict[int, int] = {}
            for v in event.picks.values():
                if v is not None:
                    counts[v] = counts.get(v, 0) + 1
            uniq = sorted(v for v, c in counts.items() if c == 1)
            state.speaker = next(
                (int(s) for s, v in event.picks.items() if uniq and v == uniq[0]), None
            )
        elif isinstance(event, Said):
            state.speaker = None
        elif isinstance(event, Out):
            state.alive.remove(event.seat)

    def open_requests(self, state: ToyState, step: int) -> tuple[DecisionRequest, ...]:
        if len(state.alive) <= 1:
            return ()
        if state.speaker is not None:
            text = Text("speech", "what you say")
            seat = state.speaker
            speak = DecisionRequest(request_id(step, seat), seat, "speak", "T-2", "Speak.", (text,))
            return (speak,)
        pick = Choice("pick", (1, 2, 3), "a number", nullable=True)
        return tuple(
            DecisionRequest(request_id(step, s), s, "pick", "T-1", "Pick.", (pick,))
            for s in state.alive
        )

    def check(self, state: ToyState, request: DecisionRequest, payload: Payload) -> None:
        return None

    def fallback(self, state: ToyState, request: DecisionRequest) -> Payload:
        return {"pick": None} if request.decision == "pick" else {"speech": ""}

    def resolve(
        self,
        state: ToyState,
        config: ToyConfig,
        answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:
        if state.speaker is not None:
            seat = state.speaker
            yield Said(seat, str(answers[seat]["speech"]))
            return
        picks = {str(s): answers[s]["pick"] for s in sorted(answers)}
        yield Picks(picks)
        if state.speaker is None:
            numbered = [(v or 0, int(s)) for s, v in picks.items()]
            top = max(v for v, _ in numbered)
            yield Out(rng.choice([s for v, s in numbered if v == top]))

    def outcome(self, state: ToyState) -> Outcome | None:
        if len(state.alive) > 1:
            return None
        results = {s: ("win" if s in state.alive else "lose") for s in range(1, state.n + 1)}
        return Outcome(ToyEnding.LAST_STANDING, results, f"seat {state.alive[0]} wins")

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        private: dict[str, Any] = {}
        history = []
        for seq, e in events:
            if isinstance(e, Secret):
                private["lucky"] = e.lucky
                history.append(HistoryItem(seq, e.kind, 0, "setup", facts={"lucky": e.lucky}))
            elif isinstance(e, Said):
                history.append(HistoryItem(seq, e.kind, 0, "day", e.seat, e.text))
            else:
                history.append(HistoryItem(seq, e.kind, 0, "day"))
        return SeatView(self, seat, private, {}, tuple(history))

    def roles(self, state: ToyState) -> Mapping[int, str]:
        return {s: f"lucky{v}" for s, v in state.lucky.items()}

    def rules_text(self, config: ToyConfig, language: str = "en") -> str:
        return "T-1 pick; T-2 speak."
