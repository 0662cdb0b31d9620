"""Who controls a seat, and switching it mid-game (the host panel).

A :class:`SwitchableSeat` wraps a seat's configured agent and delegates each
decision to the seat's current controller. A switch asked for by the host takes
effect at the seat's next decision (a person waiting on a question hands that
question straight to the AI; an AI still pacing before its answer hands it to
the person). The host's thread and the game's loop both touch the seat, so a
switch is made under a lock, and a person whose seat is switched away, before or
while playing it, is released (the page says so). Every switch is reported
through ``on_switch``, which the run wires to the transcript (a ``control``
line), so that studies, replays and forks attribute each decision to whoever
made it. The engine never hears of it: for the referee the seat simply answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sandbox.core.seat import Agent, AgentAnswer, DecisionContext
from sandbox.web.seat import HANDED_BACK, HumanBrowserAgent


@dataclass(frozen=True)
class Switch:
    """One change of controller, effective from the decision ``request_id``."""

    seat: int
    request_id: str
    before: dict[str, Any]
    after: dict[str, Any]
    by: str = "host"

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "request_id": self.request_id,
            "from": self.before,
            "to": self.after,
            "by": self.by,
        }


OnSwitch = Callable[[Switch], None]


class SwitchableSeat(Agent):
    """A seat whose controller (AI or person) the host may change between decisions."""

    kind = "switchable"

    def __init__(
        self, seat: int, configured: Agent, on_switch: OnSwitch, pace_s: float = 0.0
    ) -> None:
        self.seat = seat
        # Seconds an AI controller waits before each answer, so people can follow
        # (and step into) a game of instant bots.
        self.pace_s = pace_s
        self.configured = configured
        self.current = configured
        self.upcoming: Agent | None = None
        self.on_switch = on_switch
        self.deciding = False
        self._made: list[Agent] = []
        self._lock = threading.Lock()
        # While an AI paces before answering: its loop and the event a switch sets,
        # so that a person taking the seat gets this question at once.
        self._pacing: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def describe(self) -> dict[str, Any]:
        return self.current.describe()

    def next_controller(self) -> Agent:
        """Who plays the seat from its next decision on."""
        with self._lock:
            return self.upcoming if self.upcoming is not None else self.current

    @property
    def person(self) -> HumanBrowserAgent | None:
        """The browser seat of the person who plays this seat from now on (None
        once the host has handed it back, even before the AI's first answer)."""
        agent = self.next_controller()
        return agent if isinstance(agent, HumanBrowserAgent) else None

    def switch_to(self, agent: Agent) -> None:
        """Hand the seat to ``agent`` from its next decision on."""
        with self._lock:
            if agent is not self.configured and agent not in self._made:
                self._made.append(agent)
            replaced = [self.current, self.upcoming]
            self.upcoming = agent
            pacing = self._pacing
        if pacing is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
                pacing[0].call_soon_threadsafe(pacing[1].set)
        for before in replaced:
            if isinstance(before, HumanBrowserAgent) and before is not agent:
                # a person's open question goes to the new controller; a person
                # handed the seat but not yet asked never will be: both pages say so
                before.release()

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        self.deciding = True
        try:
            while True:
                self._take_upcoming(ctx.request.id)
                if self.pace_s and not isinstance(self.current, HumanBrowserAgent):
                    await self._pace()
                    self._take_upcoming(ctx.request.id)
                answer = await self.current.decide(ctx)
                if answer.fallback_reason == HANDED_BACK and self.upcoming is not None:
                    continue  # the person was replaced while asked: ask the new controller
                return answer
        finally:
            self.deciding = False

    async def _pace(self) -> None:
        """The AI's reading-speed wait, cut short by a switch."""
        switched = asyncio.Event()
        with self._lock:
            self._pacing = (asyncio.get_running_loop(), switched)
            if self.upcoming is not None:
                switched.set()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(switched.wait(), self.pace_s)
        finally:
            with self._lock:
                self._pacing = None

    def _take_upcoming(self, request_id: str) -> None:
        with self._lock:
            upcoming, self.upcoming = self.upcoming, None
            if upcoming is None or upcoming is self.current:
                return
            switch = Switch(self.seat, request_id, self.current.describe(), upcoming.describe())
            self.current = upcoming
        self.on_switch(switch)

    async def close(self) -> None:
        await self.configured.close()
        for agent in self._made:
            await agent.close()


def person_of(agent: Agent) -> HumanBrowserAgent | None:
    """The person's browser seat that plays ``agent``'s seat now, if any."""
    if isinstance(agent, HumanBrowserAgent):
        return agent
    if isinstance(agent, SwitchableSeat) and isinstance(agent.current, HumanBrowserAgent):
        return agent.current
    return None


def has_person(agent: Agent) -> bool:
    """Whether a person plays ``agent``'s seat, or is about to (fair play counts both)."""
    if isinstance(agent, SwitchableSeat):
        return agent.person is not None or agent.configured.kind == "human"
    return agent.kind == "human"
