"""OD-7: an open day's ask round with a person at the table, on the wall clock.

Without people a round is sealed: every seat is asked at once and the answers
go to the referee in seat order once all are in (OD-5, OD-10), so the time a
seat takes never matters. With a person asked in the round, time does matter,
and this module is where it lives (the referee stays pure):

- the person may post at any moment of the round; the first message a person
  posts closes the round at once as its first message (``Game.interject``);
- the AI answers already given stand (posts follow in drawn order, waits are
  waits); the asks still open are withdrawn (``Game.withdraw``: no budget
  spent), and the next round, which asks them again, starts at once;
- a person who neither posts nor waits within the seat's pace (its own
  ``decision_timeout_s``, else the run's ``open_pace_s``) waits for that
  round: a fallback with reason ``timeout``, never a provider failure.

Everything the clock decided is recorded in the round's decisions (the
interjection's mark, the withdrawn asks), so ``replay`` follows the record and
never the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Protocol

from sandbox.core import discussion
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import FALLBACK_TIMEOUT, Agent, AgentAnswer

# OD-7: how long a round waits for a person who sets no decision_timeout_s
# (the run's `open_pace_s`): long enough to read the chat and type a line.
OPEN_PACE_S = 30.0
PERSON = "human"  # the kind a person's seat describes itself with (terminal or browser)


class Runner(Protocol):
    """What a round on the wall clock needs of the runner (sandbox.session.runner)."""

    game: Game
    agents: Mapping[int, Agent]
    open_pace_s: float

    async def ask(self, request: DecisionRequest) -> AgentAnswer: ...

    def submit(self, request: DecisionRequest, answer: AgentAnswer) -> None: ...

    def interject(self, request: DecisionRequest, answer: AgentAnswer) -> None: ...


def is_ask_round(requests: Sequence[DecisionRequest]) -> bool:
    """Whether a step is an open day's round of asks (each asks ``speak``, OD-5)."""
    return bool(requests) and all(
        any(f.name == discussion.SPEAK for f in r.fields) for r in requests
    )


def is_person(agent: Agent) -> bool:
    """Whether a person plays the seat now (a browser or terminal seat, also one
    the host panel handed to a person: its description is the person's)."""
    return agent.describe().get("kind") == PERSON


def with_people(requests: Sequence[DecisionRequest], agents: Mapping[int, Agent]) -> bool:
    """OD-7 applies: an open day's round that asks at least one person."""
    return is_ask_round(requests) and any(is_person(agents[r.seat]) for r in requests)


def person_pace(agent: Agent, run_pace: float) -> float | None:
    """How long the round waits for this person: None when the seat has its own
    time limit (its fallback, reason ``timeout``, then ends the wait)."""
    own = agent.describe().get("decision_timeout_s")
    return None if own is not None else run_pace


async def _paced(runner: Runner, request: DecisionRequest, pace: float | None) -> AgentAnswer:
    """A person's answer to the round's ask, or a wait once the pace is over."""
    try:
        return await asyncio.wait_for(runner.ask(request), pace)
    except TimeoutError:
        note = "no message within the round's pace (OD-7)"
        return AgentAnswer(None, note=note, fallback_reason=FALLBACK_TIMEOUT)


def _interjects(runner: Runner, request: DecisionRequest, answer: AgentAnswer) -> bool:
    """A person's answer that posts a legal message (checked before the round is
    cut short: an illegal one is refused when submitted, like any answer)."""
    if answer.payload is None or not discussion.posts(answer.payload):
        return False
    try:
        runner.game.validate(request.id, answer.payload)
    except IllegalDecision:
        return False
    return True


async def play_round(runner: Runner, requests: Sequence[DecisionRequest]) -> None:
    """Ask the round's seats at once; close it when every seat has answered, or
    at once when a person posts (OD-7). The decisions go to the referee in seat
    order either way, so the record reads like any round's."""
    people = {r.seat for r in requests if is_person(runner.agents[r.seat])}
    tasks: dict[int, asyncio.Task[AgentAnswer]] = {}
    for request in requests:
        agent = runner.agents[request.seat]
        if request.seat in people:
            ask = _paced(runner, request, person_pace(agent, runner.open_pace_s))
        else:
            ask = runner.ask(request)
        tasks[request.seat] = asyncio.ensure_future(ask)
    answers: dict[int, AgentAnswer] = {}
    person: int | None = None
    waiting = set(tasks.values())
    try:
        while waiting and person is None:
            _, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            for request in requests:  # answers given together are taken in seat order
                task = tasks[request.seat]
                if request.seat in answers or not task.done():
                    continue
                answers[request.seat] = answer = task.result()
                if (
                    person is None
                    and request.seat in people
                    and _interjects(runner, request, answer)
                ):
                    person = request.seat
    finally:
        await _withdraw(waiting)
    for request in requests:
        if request.seat == person:
            runner.interject(request, answers[request.seat])
        elif request.seat in answers:
            runner.submit(request, answers[request.seat])
        else:
            runner.game.withdraw(request.id, "asked again in the next round (OD-7)")


async def _withdraw(waiting: set[asyncio.Task[AgentAnswer]]) -> None:
    """Stop the asks still open (their answers would come too late to count)."""
    for task in waiting:
        task.cancel()
    for task in waiting:
        with contextlib.suppress(asyncio.CancelledError):
            await task
