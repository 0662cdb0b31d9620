"""Tiny game (TG-1..TG-5): its config, state and fold, then ``TinyRules`` (the
referee: requests, resolution, outcome), ``TinyResearch`` (bot, metrics) and
``TinyGame``, the ``Variant`` declaring them with its views and words.

TG-1  3-6 seats; one seat, drawn from the seed, is the fox, the others are hens.
TG-2  Each seat learns only its own role.
TG-3  Each round every living seat speaks once, in seat order (empty: a pass).
TG-4  Then every living seat votes, sealed, for another living seat or nobody;
      a strict plurality ejects that seat and its role is announced; a tie or
      no votes ejects nobody.
TG-5  The hens win once the fox is ejected; the fox wins once only two seats
      are left; after ``rounds`` rounds it is a draw.
Fallbacks: a speech passes, a vote abstains.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sandbox.core.events import DecisionMade, Event
from sandbox.core.metrics import Metric
from sandbox.core.requests import Choice, DecisionRequest, Payload, Text, request_id
from sandbox.core.variant import (
    HistoryItem,
    Outcome,
    Research,
    Result,
    Rules,
    SeatView,
    Variant,
    for_language,
)
from sandbox.core.words import VariantWords
from tinygame.events import Ballots, Ejected, GameStarted, RoleCard, RoundStarted, Speech
from tinygame.info import FOX, HEN, INFO, MAX_SEATS, MIN_SEATS, Decision, Ending, Phase

if TYPE_CHECKING:
    from sandbox.core.seat import Agent


class TinyConfig(BaseModel):
    """The rulings (a game file's ``[rules]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seats: int = Field(4, ge=MIN_SEATS, le=MAX_SEATS, description="players (TG-1)")
    rounds: int = Field(3, ge=1, le=10, description="rounds before a draw (TG-5)")
    seat: tuple[dict[str, Any], ...] = Field((), description="[[seat]] tables: none allowed")

    @field_validator("seat")
    @classmethod
    def _no_fixed_seats(cls, value: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
        if value:
            raise ValueError("seat: tinygame deals every role from the seed (TG-1)")
        return value


@dataclass
class TinyState:
    seats: int = 0
    rounds: int = 0
    roles: dict[int, str] = field(default_factory=dict)
    living: list[int] = field(default_factory=list)
    day: int = 0
    phase: str = Phase.SETUP
    to_speak: list[int] = field(default_factory=list)
    fox_out: bool = False


def fold(state: TinyState, event: Event) -> None:
    if isinstance(event, GameStarted):
        state.seats, state.rounds = event.seats, event.rounds
        state.living = list(range(1, event.seats + 1))
    elif isinstance(event, RoleCard):
        state.roles[event.seat] = event.role
    elif isinstance(event, RoundStarted):
        state.day, state.phase, state.to_speak = event.day, Phase.SPEECHES, list(event.living)
    elif isinstance(event, Speech):
        state.to_speak.remove(event.seat)
        if not state.to_speak:
            state.phase = Phase.VOTE
    elif isinstance(event, Ejected):
        if event.seat is not None:
            state.living.remove(event.seat)
            state.fox_out = state.fox_out or event.role == FOX
        if state.fox_out or len(state.living) <= 2 or state.day >= state.rounds:
            state.phase = Phase.OVER


class TinyRules(Rules[TinyState, TinyConfig]):
    """The referee's hooks (TG-1..TG-5)."""

    apply = staticmethod(fold)

    def seat_count(self, config: TinyConfig) -> int:
        return config.seats

    def initial_state(self, config: TinyConfig) -> TinyState:
        return TinyState()

    def setup(self, config: TinyConfig, rng: random.Random) -> Iterator[Event]:
        fox = rng.randint(1, config.seats)  # TG-1
        yield GameStarted(config.seats, config.rounds)
        for seat in range(1, config.seats + 1):
            yield RoleCard(seat, FOX if seat == fox else HEN)  # TG-2
        yield RoundStarted(1, tuple(range(1, config.seats + 1)))

    def open_requests(self, state: TinyState, step: int) -> tuple[DecisionRequest, ...]:
        if state.phase == Phase.SPEECHES:
            seat = state.to_speak[0]
            speech = Text("speech", "what you tell everyone (empty: pass)", max_chars=300)
            return (DecisionRequest(request_id(step, seat), seat, Decision.SPEECH, "TG-3",
                                    "Speak to the table, or pass.", (speech,)),)  # fmt: skip
        if state.phase == Phase.VOTE:
            return tuple(self._vote(state, step, seat) for seat in state.living)
        return ()

    def _vote(self, state: TinyState, step: int, seat: int) -> DecisionRequest:
        others = tuple(s for s in state.living if s != seat)
        target = Choice("target", others, "the seat you want ejected", nullable=True)
        return DecisionRequest(
            request_id(step, seat),
            seat,
            Decision.VOTE,
            "TG-4",
            "Vote for the seat to eject, or null to abstain.",
            (target,),
        )

    def check(self, state: TinyState, request: DecisionRequest, payload: Payload) -> None:
        return None  # the options are exactly the legal values (TG-4)

    def fallback(self, state: TinyState, request: DecisionRequest) -> Payload:
        return {"speech": ""} if request.decision == Decision.SPEECH else {"target": None}

    def resolve(
        self, state: TinyState, config: TinyConfig, answers: Mapping[int, Payload],
        rng: random.Random,
    ) -> Iterator[Event]:  # fmt: skip
        if state.phase == Phase.SPEECHES:
            (seat,) = answers
            yield Speech(state.day, seat, str(answers[seat]["speech"]))
            return
        ballots = {str(s): answers[s]["target"] for s in sorted(answers)}
        yield Ballots(state.day, ballots)
        tally: dict[int, int] = {}
        for target in ballots.values():
            if target is not None:
                tally[target] = tally.get(target, 0) + 1
        top = max(tally.values(), default=0)
        leaders = [s for s, n in tally.items() if n == top]
        out = leaders[0] if top and len(leaders) == 1 else None
        yield Ejected(state.day, out, state.roles[out] if out is not None else None)
        if state.phase != Phase.OVER:
            yield RoundStarted(state.day + 1, tuple(state.living))

    def outcome(self, state: TinyState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        if state.fox_out:
            ending, winner = Ending.FOX_CAUGHT, HEN
        elif len(state.living) <= 2:
            ending, winner = Ending.FOX_SURVIVED, FOX
        else:
            ending, winner = Ending.ROUND_LIMIT, None
        results = {
            s: Result.DRAW if winner is None else Result.WIN if r == winner else Result.LOSE
            for s, r in sorted(state.roles.items())
        }
        summary = {HEN: "The hens ejected the fox.", FOX: "The fox outlasted the hens."}
        return Outcome(ending, results, summary.get(winner or "", "Nobody won in time."))

    def roles(self, state: TinyState) -> Mapping[int, str]:
        return dict(state.roles)


class TinyResearch(Research):
    """What studies ask: the bot and the metrics, imported only when asked for."""

    def baseline_bot(self, seed: int, language: str = "en") -> Agent:
        from tinygame.bot import BaselineBot

        return BaselineBot(seed)

    def metrics(self) -> Mapping[str, Metric]:
        from tinygame.metrics import METRICS

        return METRICS


class TinyGame(Variant[TinyState, TinyConfig]):
    """The declaration: what it is, its rules, its views and its words."""

    info = INFO
    config_model = TinyConfig
    rules = TinyRules()
    research = TinyResearch(INFO)

    def build_view(self, seat: int, events: Sequence[tuple[int, Event]]) -> SeatView:
        private: dict[str, Any] = {"seat": seat}
        public: dict[str, Any] = {"day": 0, "phase": Phase.SETUP, "living": [], "ejected": []}
        history: list[HistoryItem] = []
        for seq, event in events:
            if isinstance(event, GameStarted):
                public["living"] = list(range(1, event.seats + 1))
                public["rounds"] = event.rounds
            elif isinstance(event, RoleCard):
                private["role"] = event.role
            elif isinstance(event, RoundStarted):
                order = list(event.living)
                public.update(day=event.day, phase=Phase.SPEECHES, speaking_order=order)
            elif isinstance(event, Speech):
                order = [s for s in public.get("speaking_order", []) if s != event.seat]
                public["speaking_order"] = order
                if not order:
                    public["phase"] = Phase.VOTE
            elif isinstance(event, Ejected) and event.seat is not None:
                public["living"] = [s for s in public["living"] if s != event.seat]
                public["ejected"] = [*public["ejected"], {"seat": event.seat, "role": event.role}]
            history.append(_item(seq, event, public))
        return SeatView(self, seat, private, public, tuple(history))

    def rules_text(self, config: TinyConfig, language: str = "en") -> str:
        return for_language(language, RULES).format(seats=config.seats, rounds=config.rounds)

    # --------------------------------------------------------- optional hooks

    def words(self) -> VariantWords:
        from tinygame.words import WORDS

        return WORDS

    def prompt_templates(self) -> Traversable:
        return resources.files("tinygame") / "prompts"


def _item(seq: int, event: Event, public: Mapping[str, Any]) -> HistoryItem:
    day, phase = int(public["day"]), str(public["phase"])
    data = event.to_json()["data"]
    if isinstance(event, Speech):
        return HistoryItem(seq, event.kind, day, phase, event.seat, event.text, {"day": event.day})
    if isinstance(event, DecisionMade):
        facts = {"decision": event.decision, "payload": data["payload"], "fallback": event.fallback}
        return HistoryItem(seq, event.kind, day, phase, facts=facts)
    return HistoryItem(seq, event.kind, day, phase, facts=data)


RULES = {
    "en": (
        "TG-1 {seats} seats: one fox, the others hens, dealt from the seed.\n"
        "TG-2 You learn only your own role.\n"
        "TG-3 Each round every living seat speaks once, in seat order (or passes).\n"
        "TG-4 Then every living seat votes, sealed, for another living seat or nobody; "
        "a strict plurality ejects that seat and its role is announced.\n"
        "TG-5 The hens win once the fox is ejected; the fox wins once only two seats "
        "are left; after {rounds} rounds the game is a draw."
    ),
    "zh": (
        "TG-1 共{seats}个座位：一只狐狸，其余是母鸡，按随机种子发牌。\n"
        "TG-2 你只知道自己的身份。\n"
        "TG-3 每一轮每个存活的座位按座位号依次发言一次（也可以选择过）。\n"
        "TG-4 然后每个存活的座位秘密投票给另一个存活的座位或弃权；"
        "得票严格最多者出局，并公布其身份。\n"
        "TG-5 狐狸出局则母鸡获胜；只剩两个座位时狐狸获胜；{rounds}轮之后为平局。"
    ),
}
