"""The seat contract: the one async interface every kind of seat implements,
what it is handed to decide, and what the host that seats it offers.

It lives beside the referee because the engine defines it: seats (``agents/``)
implement it, variants' bots (``games/``) implement it, the session seats them
and the display layer (``web/``) is a host. A seat gets everything from the
:class:`Seating` it is attached with and the :class:`DecisionContext` of each
decision, never from a process-wide global.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from sandbox.core.requests import DecisionRequest
from sandbox.core.rng import derive_rng
from sandbox.core.variant import HistoryItem, SeatView, Variant

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

    variant: Variant[Any, Any]
    request: DecisionRequest
    view_fn: Callable[[], SeatView]
    validate: Callable[[object], dict[str, Any]]
    # The variant's rules with this game's rulings, in a given language ("en", "zh").
    rules_fn: Callable[[str], str] = lambda language: ""
    # The referee's one-line wording of a history item the seat saw (None: unknown),
    # the same line `sandbox view` shows, for seats that show history to people.
    describe_item: Callable[[HistoryItem], str] | None = None

    @classmethod
    def for_request(
        cls, game: Game, request: DecisionRequest, rules: Callable[[str], str] | None = None
    ) -> DecisionContext:
        """The context of one open request: the seat's own view, a dry-run check
        against the referee and the rules text, nothing else of the game."""
        return cls(
            variant=game.variant,
            request=request,
            view_fn=lambda: game.view(request.seat),
            validate=lambda payload: game.validate(request.id, payload),
            rules_fn=rules or rules_book(game),
            describe_item=lambda item: game.variant.describe_event(game.events[item.seq]),
        )

    def rules(self, language: str = "en") -> str:
        """The rules text as every seat of this game gets it, in ``language``."""
        return self.rules_fn(language)

    @cached_property
    def view(self) -> SeatView:
        return self.view_fn()

    @property
    def seat(self) -> int:
        return self.request.seat


def rules_book(game: Game) -> Callable[[str], str]:
    """The game's rules text per language, written once per language and game."""
    return functools.cache(lambda language: game.variant.rules_text(game.config, language))


@dataclass
class AgentAnswer:
    """A seat's answer. ``payload=None`` asks the referee for the documented fallback."""

    payload: Mapping[str, Any] | None
    note: str = ""
    fallback_reason: str | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    repairs: int = 0


class AgentSetupError(Exception):
    """An agent that cannot be built or seated (e.g. no baseline bot for a variant,
    an unset key variable). One line, raised before the game's first event."""


@dataclass
class RemoteSettings:
    """The timing of a seat played by a program (``sandbox.web.remote``)."""

    decision_timeout_s: float = 60.0
    max_invalid: int = 3
    reconnect_s: float = 5.0
    connect_timeout_s: float = 60.0  # the first connection, before the first decision


class SeatHost(Protocol):
    """What the host that seats a game offers the seats that need more than the
    game: a page for a person, an endpoint for a program. The run's web pages
    (``sandbox.web.run.WebRun``) are one; the session hands it to the seats in
    their :class:`Seating`, so no seat ever reaches for a global."""

    def browser_agent(
        self, seat: int, port: int | None, timeout_s: float | None, language: str, pace_s: float
    ) -> Agent:
        """A person's page for ``seat`` (the same page serves every game of a series)."""
        ...

    def remote_agent(
        self,
        seat: int,
        port: int | None,
        token: str | None,
        settings: RemoteSettings,
        language: str,
    ) -> Agent:
        """An endpoint for a program playing ``seat`` over a WebSocket."""
        ...


@dataclass(frozen=True)
class Seating:
    """What a seat is told when it is seated (:meth:`Agent.attach`): its seat, the
    game's seed (agents built without a seed derive theirs from it), the variant
    played, and the host that seats it (None: no host, e.g. a game played from
    Python without web pages)."""

    seat: int
    game_seed: int
    variant: Variant[Any, Any]
    host: SeatHost | None = None

    def host_for(self, what: str, own: SeatHost | None = None) -> SeatHost:
        """The host serving ``what`` (e.g. "a browser seat"): the seat's ``own``
        when it was given one, else this seating's; AgentSetupError when neither."""
        host = own or self.host
        if host is None:
            raise AgentSetupError(
                f"{what} needs web pages to serve it: play it with `sandbox run`, "
                "or pass host=sandbox.web.WebRun()"
            )
        return host


class Agent(ABC):
    """A seat's decision maker.

    ``replayable``: the agent's answers depend only on its seed and on what it was
    asked, so resume and fork can bring it back to where a run left it by asking it
    every recorded question again (answers dropped). Agents that call a model or
    ask a person are not.
    """

    kind: ClassVar[str] = ""
    replayable: ClassVar[bool] = False

    def attach(self, seating: Seating) -> None:  # noqa: B027
        """Called once before the game starts (optional hook), with the seat this
        agent plays, the game's seed, the variant and the host (:class:`Seating`).
        Raise AgentSetupError if it cannot play there."""

    @abstractmethod
    async def decide(self, ctx: DecisionContext) -> AgentAnswer: ...

    def describe(self) -> dict[str, Any]:
        """What the transcript header records about this seat (never secrets)."""
        return {"kind": self.kind}

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources at the end of a run."""


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in a game with ``game_seed``: one per seat,
    so seats never share a random stream and a re-run draws the same."""
    return derive_rng(game_seed, "agent", seat).getrandbits(63)


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
