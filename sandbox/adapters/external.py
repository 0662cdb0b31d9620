"""Seats driven from outside the event loop: the agent the runner asks, and
the desk where the answers given from outside are judged.

The runner asks an :class:`ExternalSeat` like any other agent. Its ``decide``
puts the question on the :class:`Desk` and waits; code on another thread
(the stepping interface) reads the open questions, hands in answers and gets
each one's verdict. An answer the referee refuses is sent back with the
referee's error and the same question stays open, up to ``max_attempts``
answers; then the seat gets the recorded fallback with reason ``invalid``, as
an LLM seat does after its repairs. Every answer is a call line of the
transcript (``model`` "external", ``repair`` = the answer's index), so
repairs are counted the way the LLM seat's are.

All the desk's methods that touch the game run on the loop's thread; only
``wait_for`` and ``open_seats`` are called from the other side.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox.agents.llm.parse import strip_fences
from sandbox.agents.observation import plain
from sandbox.core.errors import IllegalDecision
from sandbox.core.seat import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext

EXTERNAL = "external"
# Keys an LLM-style answer may carry beside the decision's fields: the private
# note (kept as the decision's note) and a belief object (not asked here).
NOTE_KEY = "reasoning"
IGNORED_KEYS = ("beliefs",)


@dataclass
class Question:
    """One open request of an external seat and the answers given so far."""

    ctx: DecisionContext
    answered: asyncio.Future[AgentAnswer]
    asked_at: float = field(default_factory=time.monotonic)
    calls: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return len(self.calls)


@dataclass(frozen=True)
class Verdict:
    """What became of one answer: ``accepted`` (recorded), else ``error`` (the
    referee's reason); ``fallback`` when it was the last attempt allowed."""

    accepted: bool
    error: str | None = None
    fallback: bool = False
    attempts: int = 1
    payload: dict[str, Any] | None = None


class Desk:
    """The open questions of the external seats, by seat."""

    def __init__(self, max_attempts: int) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.max_attempts = max_attempts
        # Every answer's seat and call line (the same dict: its outcome is added
        # below), for the seats' tallies (sandbox.adapters.validity).
        self.answered: list[tuple[int, dict[str, Any]]] = []
        self._open: dict[int, Question] = {}
        self._changed = threading.Condition()

    # ------------------------------------------------------------ loop side
    async def ask(self, ctx: DecisionContext) -> AgentAnswer:
        question = Question(ctx, asyncio.get_running_loop().create_future())
        with self._changed:
            self._open[ctx.seat] = question
            self._changed.notify_all()
        try:
            return await question.answered
        finally:
            with self._changed:
                self._open.pop(ctx.seat, None)
                self._changed.notify_all()

    def question(self, seat: int) -> Question:
        found = self._open.get(seat)
        if found is None:
            raise KeyError(f"seat {seat} has no open question")
        return found

    def answer(self, seat: int, answer: object, refused: str | None = None) -> Verdict:
        """Judge one answer to ``seat``'s open question (on the loop's thread);
        ``refused``: the answer is refused for that reason before the referee
        sees it (e.g. a move index out of range)."""
        question = self.question(seat)
        if refused is None:
            payload, note, error = read_answer(answer, question.ctx.validate)
        else:
            payload, note, error = None, "", refused
        repair = question.attempts
        record: dict[str, Any] = {
            "model": EXTERNAL,
            "attempt": 1,
            "repair": repair,
            "raw": answer if isinstance(answer, str) else _text(answer),
            "latency_ms": round((time.monotonic() - question.asked_at) * 1000),
        }
        question.asked_at = time.monotonic()
        question.calls.append(record)
        self.answered.append((seat, record))
        if error is None:
            record["parsed"] = payload
            self._close(seat, AgentAnswer(payload, note, None, question.calls, repairs=repair))
            return Verdict(True, attempts=repair + 1, payload=payload)
        record["error"] = f"invalid: {error}"
        question.errors.append(error)
        if question.attempts < self.max_attempts:
            return Verdict(False, error, attempts=question.attempts)
        note = f"{note}\n[referee] {error}".strip()
        answer_ = AgentAnswer(None, note, FALLBACK_INVALID, question.calls, repairs=repair)
        self._close(seat, answer_)
        return Verdict(False, error, fallback=True, attempts=question.attempts)

    def _close(self, seat: int, answer: AgentAnswer) -> None:
        # Taken off the desk now, not when ``ask`` resumes: the other thread
        # must not see the question as still open once it has its verdict.
        with self._changed:
            question = self._open.pop(seat)
            self._changed.notify_all()
        question.answered.set_result(answer)

    # ----------------------------------------------------------- other side
    def open_seats(self) -> list[int]:
        with self._changed:
            return sorted(self._open)

    def wait_for(self, ready: Callable[[], bool], timeout: float | None = None) -> bool:
        """Block until ``ready()`` (checked whenever a question opens or closes,
        and when ``poke`` is called)."""
        with self._changed:
            return self._changed.wait_for(ready, timeout)

    def poke(self) -> None:
        with self._changed:
            self._changed.notify_all()


def read_answer(
    answer: object, validate: Callable[[object], Mapping[str, Any]]
) -> tuple[dict[str, Any] | None, str, str | None]:
    """(the normalised payload, the note, None) for an answer the referee
    accepts, else (None, the note, the error). ``answer`` is the decision's
    JSON object, as a mapping or as text (fenced or wrapped in prose, as a
    model may write it); a ``reasoning`` key becomes the note."""
    if isinstance(answer, str):
        try:
            answer = json.loads(strip_fences(answer), strict=False)
        except json.JSONDecodeError as err:
            return None, "", f"The answer is not valid JSON ({err.msg})."
    if not isinstance(answer, Mapping):
        return None, "", "The answer must be one JSON object."
    fields = {k: v for k, v in answer.items() if k != NOTE_KEY and k not in IGNORED_KEYS}
    note = str(answer.get(NOTE_KEY) or "")
    try:
        return plain(validate(fields)), note, None
    except IllegalDecision as err:
        return None, note, str(err)


def _text(answer: object) -> str:
    try:
        return json.dumps(answer, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(answer)


class ExternalSeat(Agent):
    """A seat whose answers come from outside (the stepping interface)."""

    kind = EXTERNAL

    def __init__(self, desk: Desk, language: str = "en") -> None:
        self.desk = desk
        self.language = language

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "max_attempts": self.desk.max_attempts,
            "language": self.language,
        }

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        return await self.desk.ask(ctx)
