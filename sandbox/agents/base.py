"""The one async interface every kind of seat implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import HistoryItem, SeatView

if TYPE_CHECKING:  # only for the annotation; agents never hold a Game at run time
    from sandbox.core.game import Game

# Why a seat ended up with a fallback decision (recorded in the transcript).
FALLBACK_INVALID = "invalid"  # answers kept breaking the rules after repairs
FALLBACK_PROVIDER = "provider"  # the model provider stayed unavailable
FALLBACK_TIMEOUT = "timeout"  # no answer in time
FALLBACK_EXHAUSTED = "exhausted"  # a scripted seat ran out of decisions (default: fallback)
FALLBACK_UNLISTED = "unlisted"  # a scripted seat skipped a request its script does not list
FALLBACK_QUIT = "quit"  # a human left the game


@dataclass
class DecisionContext:
    """What a seat is given to decide: the request, its view, and a dry-run check.

    The view is computed lazily from the events the seat may see; agents never
    get the game state.
    """

    variant: str
    request: DecisionRequest
    view_fn: Callable[[], SeatView]
    validate: Callable[[object], dict[str, Any]]
    rules_text: str = ""
    # The referee's one-line wording of a history item the seat saw (None: unknown),
    # the same line `sandbox view` shows, for seats that show history to people.
    describe_item: Callable[[HistoryItem], str] | None = None

    @classmethod
    def for_request(
        cls, game: Game, request: DecisionRequest, rules_text: str = ""
    ) -> DecisionContext:
        """The context of one open request: the seat's own view and a dry-run check
        against the referee, nothing else of the game."""
        return cls(
            variant=game.variant.name,
            request=request,
            view_fn=lambda: game.view(request.seat),
            validate=lambda payload: game.validate(request.id, payload),
            rules_text=rules_text,
            describe_item=lambda item: game.variant.describe_event(game.events[item.seq]),
        )

    @cached_property
    def view(self) -> SeatView:
        return self.view_fn()

    @property
    def seat(self) -> int:
        return self.request.seat


@dataclass
class AgentAnswer:
    """A seat's answer. ``payload=None`` asks the referee for the documented fallback."""

    payload: Mapping[str, Any] | None
    note: str = ""
    fallback_reason: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    repairs: int = 0


class Agent(ABC):
    """A seat's decision maker."""

    kind: ClassVar[str] = ""

    @abstractmethod
    async def decide(self, ctx: DecisionContext) -> AgentAnswer: ...

    def describe(self) -> dict[str, Any]:
        """What the transcript header records about this seat (never secrets)."""
        return {"kind": self.kind}

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources at the end of a run."""


class AgentAwaited(RuntimeError):
    """``decide_now`` was used on an agent that really awaits (an LLM or a human)."""


def decide_now(agent: Agent, ctx: DecisionContext) -> AgentAnswer:
    """Run ``agent.decide`` to completion without an event loop.

    For agents that never really await (bots, random and scripted seats): fast
    loops over thousands of games (tests, benches) skip the loop's overhead.
    """
    coro = agent.decide(ctx)
    try:
        coro.send(None)
    except StopIteration as done:
        answer: AgentAnswer = done.value
        return answer
    coro.close()
    raise AgentAwaited(f"{type(agent).__name__} awaited something; use the async Runner")
