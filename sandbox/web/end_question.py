"""A blind study's end question (issue 39, item 4): "which seats were played
by AI?", asked on a person's page once the game is over, before the results.

A person's seat in a blind study is a :class:`BlindSeat`: when the game ends its
page keeps the final view and shows the question (one box per other seat; none
ticked is an answer too: "every other seat was a person"), with the page's
usual Send and Confirm; the results follow once it is answered, or when the
wait for an answer ends. The answer goes to the run (:class:`BlindRun`), which
gives it to the outcome line as ``end_answers`` (referee-only; read by
sandbox.analysis.detect). The seat's pages never name a seat's model, in a
blind study or not; what blind adds is the question.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from sandbox.analysis.detect import ANSWERS, QUESTION
from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.transcript import TranscriptWriter
from sandbox.web.audience import Checked, NoOpenDecision
from sandbox.web.hub import Audience, WebHub
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from sandbox.web.words import ui

END_REQUEST = "end.ai_seats"  # the question's request id on the page
FIELD = "ai_seats"
END_WAIT_S = 600.0  # how long the run waits for an answer before it moves on

Record = Callable[[int, list[int]], None]


class BlindSeat(HumanBrowserAgent):
    """A person's browser seat that asks the end question before the results."""

    def __init__(self, seat: int, *args: Any, record: Record, wait_s: float, **kw: Any) -> None:
        super().__init__(seat, *args, **kw)
        self.record = record
        self.wait_s = wait_s
        self.table: Sequence[int] = ()  # every seat of the game (set by the run)
        self._end: tuple[str, str | None] | None = None
        self._answered: concurrent.futures.Future[list[int]] = concurrent.futures.Future()
        self._lock = threading.Lock()

    def finish(self, end_html: str, view_html: str | None = None) -> None:
        """Hold the results back and ask the question (the page's own form)."""
        self._end = (end_html, view_html)
        changes: dict[str, Any] = {"view_html": view_html} if view_html is not None else {}
        self.board.update(
            status="your_turn",
            form_html=question_html(self.seat, self.table, self.language),
            request_id=END_REQUEST,
            deadline=None,
            end_html="",
            out="",
            **changes,
        )

    def _named(self, request_id: object, answer: object) -> list[int]:
        """The seats named, checked: other seats of this game only."""
        if self._end is None or self._answered.done():
            raise NoOpenDecision
        raw = answer.get(FIELD, []) if isinstance(answer, Mapping) else None
        others = set(self.table) - {self.seat}
        if not isinstance(raw, list) or not all(isinstance(s, int) and s in others for s in raw):
            raise ValueError(f"name other seats only: {sorted(others)}")
        return sorted(set(raw))

    async def check(self, request_id: object, answer: object) -> Checked:
        if request_id != END_REQUEST:  # a question of the game: the seat's own
            return await super().check(request_id, answer)
        try:
            self._named(request_id, answer)
        except ValueError as err:
            return Checked(str(err))
        return Checked()

    async def answer(self, request_id: object, answer: object) -> str:
        if request_id != END_REQUEST:
            return await super().answer(request_id, answer)
        try:
            named = self._named(request_id, answer)
        except ValueError as err:
            return str(err)
        with self._lock:  # the game's thread may be closing the question this moment
            if self._answered.done():
                raise NoOpenDecision
            self.record(self.seat, named)
            self._answered.set_result(named)
        self._show_end()
        return ""

    def _show_end(self) -> None:
        if self._end is not None:
            super().finish(*self._end)

    async def close(self) -> None:
        """Wait (at most ``wait_s``) for the answer: the outcome line, written
        after the seats close, carries it. Unanswered, the results are shown."""
        if self._end is not None and not self._answered.done():
            waiting = asyncio.shield(asyncio.wrap_future(self._answered))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiting, self.wait_s)
        with self._lock:
            unanswered = self._answered.cancel()  # False once answered
        if unanswered:  # the question closes; a late answer is refused
            self._show_end()
        await super().close()


# The question's words on the page, in the seat's language (the study's record
# keeps QUESTION, in English, whatever the page said).
END_WORDS = {
    "en": {
        "intro": f"The game is over. Before the results: {QUESTION} Tick every seat you think "
        "a model played (none: you think every other seat was a person).",
        "legend": "Seats played by AI",
        "confirm": "Played by AI",
    },
    "zh": {
        "intro": "游戏结束了。公布结果之前请回答：哪些座位是由AI操控的？请勾选你认为由模型操控的"
        "每一个座位（一个都不勾：你认为其他座位都是真人）。",
        "legend": "由AI操控的座位",
        "confirm": "由AI操控",
    },
}


def question_html(mine: int, table: Sequence[int], language: str) -> str:
    """The question as the page's decision form (the same ids and data the
    page's script binds: Send, then Confirm), in the page's language."""
    t = ui(language)
    words = END_WORDS.get(language, END_WORDS["en"])
    options = "".join(
        f'<label class="option"><input type="checkbox" name="{FIELD}" value="{s}" '
        f'data-words="{escape(t["seat"].format(n=s))}"> {escape(t["seat"].format(n=s))}</label>'
        for s in table
        if s != mine
    )
    return (
        f'<form id="decision" data-request="{END_REQUEST}" data-draft="{END_REQUEST}">'
        f'<p class="instruction">{escape(words["intro"])}</p>'
        f'<fieldset data-field="{FIELD}" data-kind="multi" '
        f'data-confirm="{escape(words["confirm"])}" data-limit="{len(table)}">'
        f"<legend>{escape(words['legend'])}</legend>"
        f'<div class="options">{options}</div></fieldset>'
        f'<button type="submit" id="send">{escape(t["send"])}</button>'
        f'<div id="confirm" hidden><p>{escape(t["confirm_intro"])} '
        '<strong id="confirm-what"></strong></p>'
        '<p id="confirm-shown" hidden><q id="confirm-shown-text"></q></p>'
        f'<button type="button" id="confirm-yes">{escape(t["confirm"])}</button>'
        f'<button type="button" id="confirm-no">{escape(t["change"])}</button></div></form>'
    )


@dataclass
class BlindRun(WebRun):
    """The web side of one blind study game: its people's seats ask the end
    question, and :meth:`outcome_extra` gives the answers to the outcome line."""

    wait_s: float = END_WAIT_S
    answers: dict[int, list[int]] = field(default_factory=dict)
    _blind: list[BlindSeat] = field(default_factory=list)

    def person_seat(
        self, seat: int, hub: WebHub, *, audience: Audience, **options: Any
    ) -> HumanBrowserAgent:
        # the page (its address, announced once) is the run's; the seat on it is blind
        agent = BlindSeat(
            seat, hub, audience=audience, record=self._record, wait_s=self.wait_s, **options
        )
        self._blind.append(agent)
        return agent

    def _record(self, seat: int, named: list[int]) -> None:
        self.answers[seat] = named

    def seat_agents(
        self, game: Game, agents: dict[int, Agent], writer: TranscriptWriter
    ) -> dict[int, Agent]:
        for person in self._blind:
            person.table = sorted(game.roles())
        return super().seat_agents(game, agents, writer)

    def outcome_extra(self) -> dict[str, Any]:
        """The outcome line's ``end_answers`` (seat -> seats named as AI)."""
        if not self.answers:
            return {}
        return {ANSWERS: {str(s): {FIELD: named} for s, named in sorted(self.answers.items())}}
