"""A person playing one seat in a browser page.

The page shows only what a terminal or model seat is given: ``ctx.view`` (the
role card, the public state, the events this seat may see), the rules text a
model seat gets, and the open request as a form. Answers come from the server
thread, are checked with the referee's dry run (``ctx.validate``) on the game's
own event loop, and an illegal one is refused with the referee's message while
the question stays open. "Leave game" makes this and every later decision the
referee's fallback, recorded as FALLBACK_QUIT.

Between its decisions the page follows the game (the run calls :meth:`follow`
with the seat's view after every event the seat may see), also once the seat
is out. A time limit counts from the moment a page first shows the question,
not from the moment it was asked (nobody may be looking yet).

Nothing changes silently (issue 38 item 4): a question whose time ran out says
so on the page (the page keeps what the person had typed), and each of the
seat's fallbacks reads in words in its history ("time ran out").
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox.agents.human.readable import own_death, seat_alive
from sandbox.agents.human.refusal import refusal_words
from sandbox.agents.human.terminal import for_people
from sandbox.core.discussion import SPEAK, posts
from sandbox.core.errors import IllegalDecision, RefereeError
from sandbox.core.seat import (
    FALLBACK_QUIT,
    FALLBACK_TIMEOUT,
    Agent,
    AgentAnswer,
    DecisionContext,
    Seating,
)
from sandbox.core.variant import SeatView
from sandbox.core.words import Words
from sandbox.web.audience import Audience, Checked, NoOpenDecision
from sandbox.web.board import Board
from sandbox.web.form import draft_key, open_chat, refused_options, render_form
from sandbox.web.hub import WebHub
from sandbox.web.pages import DECIDED, render_view, with_reasons
from sandbox.web.words import ui
from sandbox.words import lang, phase_title
from sandbox.words.shown import shown_words

WAITING = "waiting"
YOUR_TURN = "your_turn"
LEFT = "left"
HANDED_BACK = "handed_back"
ENDED = "ended"


@dataclass
class _Pending:
    ctx: DecisionContext
    future: asyncio.Future[AgentAnswer]
    # set (on the game loop) once a page has shown the question: the clock starts
    shown: asyncio.Event = field(default_factory=asyncio.Event)
    deadline: float | None = None


def seat_audience(seat: int, language: str = "en") -> Audience:
    """The page of one seat; it may outlive one agent (a series, a take-over)."""
    title = ui(language)["your_seat"].format(n=seat)
    return Audience("seat", Board(status=WAITING, seat=seat, title=title), title, language)


class HumanBrowserAgent(Agent):
    """A human seat played in a browser page at ``self.url``."""

    kind = "human"

    def __init__(
        self,
        seat: int,
        hub: WebHub,
        *,
        audience: Audience | None = None,
        decision_timeout_s: float | None = None,
        language: str = "en",
        pace_s: float = 0.0,
    ) -> None:
        self.seat = seat
        self.hub = hub
        self.language = language
        self.decision_timeout_s = decision_timeout_s
        # Seconds the run waits after each event this seat's page shows (reading speed).
        self.pace_s = pace_s
        self.audience = audience or seat_audience(seat, language)
        self.audience.seat = self
        if self.audience not in hub.audiences():
            hub.add(self.audience)
        self.board = self.audience.board
        self.left = False
        # The rules in the page's language (set by the run); else the model seats' text.
        self.rules_text: str | None = None
        self._pending: _Pending | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_seen = -1
        self._game = ""  # the game's seed, in the key of the page's drafts
        self._words: dict[int, Words] = {}  # this game's history in words, by seq
        self.out = False
        # Why the referee answered for this seat: the reason of its n-th own
        # decision, by n (the seat's view keeps a fallback's reason out).
        self._fallbacks: dict[int, str] = {}
        # Handed back by the host: the page keeps following the seat as its spectator
        # (issue 38 item 5), as far as fair play allows (the run decides; web/run.py).
        self.watching = False
        self.board.update(
            status=WAITING,
            form_html="",
            request_id=None,
            end_html="",
            error="",
            out="",
            notice="",
            unsent="",
        )

    def attach(self, seating: Seating) -> None:
        self._game = str(seating.game_seed)

    @property
    def url(self) -> str:
        return self.hub.url(self.audience)

    @property
    def token(self) -> str:
        return self.audience.token

    def describe(self) -> dict[str, Any]:
        # Never the token: the transcript header is shared with researchers.
        described: dict[str, Any] = {"kind": self.kind, "interface": "browser"}
        if self.decision_timeout_s is not None:
            described["decision_timeout_s"] = self.decision_timeout_s
        if self.pace_s:
            described["pace_s"] = self.pace_s
        return described

    # ------------------------------------------------------- the game side
    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        self._loop = asyncio.get_running_loop()
        # this decision will be the seat's next own decision in its history
        nth = sum(1 for item in ctx.view.history if item.kind == DECIDED)
        if self.left:
            self._fallbacks[nth] = FALLBACK_QUIT
            return AgentAnswer(None, note="the player left", fallback_reason=FALLBACK_QUIT)
        future: asyncio.Future[AgentAnswer] = self._loop.create_future()
        pending = self._pending = _Pending(ctx, future)
        self._show_turn(ctx)
        answer: AgentAnswer | None = None
        try:
            answer = await self._answer_in_time(pending)
            return answer
        except TimeoutError:
            answer = AgentAnswer(None, note="no answer in time", fallback_reason=FALLBACK_TIMEOUT)
            return answer
        finally:
            self._pending = None
            reason = (answer.fallback_reason or "") if answer is not None else ""
            if reason:
                self._fallbacks[nth] = reason
            if self.board.get("status") == YOUR_TURN:
                # OD-7: an open day's box stays between rounds (the page keeps what
                # is sent then for the next round's ask); any other question goes
                kept = self.board.get("form_html") if _chat_box(ctx, answer) else ""
                self.board.update(
                    status=WAITING,
                    form_html=kept,
                    request_id=None,
                    deadline=None,
                    **self._timed_out(ctx, reason),
                )

    def _timed_out(self, ctx: DecisionContext, reason: str) -> dict[str, str]:
        """The page's notice when the time ran out, and the key its draft is kept
        under (the page offers that draft again: nothing typed is lost)."""
        if reason != FALLBACK_TIMEOUT:
            return {}
        notice = ui(self.language)["timed_out"]
        return {"notice": notice, "unsent": draft_key(self._game, ctx.request)}

    def worded(self, view: SeatView) -> SeatView:
        """``view`` with the reason of each of the seat's fallbacks in words."""
        return with_reasons(view, self.language, lambda seq, nth: self._fallbacks.get(nth))

    async def _answer_in_time(self, pending: _Pending) -> AgentAnswer:
        """The answer; with a time limit, counted from when a page shows the question."""
        timeout = self.decision_timeout_s
        if timeout is None:
            return await pending.future
        shown: asyncio.Future[Any] = asyncio.ensure_future(pending.shown.wait())
        waiting: set[asyncio.Future[Any]] = {pending.future, shown}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            shown.cancel()
        if pending.future.done():
            return pending.future.result()
        return await asyncio.wait_for(pending.future, timeout)

    def shown(self, request_id: object) -> None:
        """A page has shown the question ``request_id`` (called by the server): the
        time limit starts now, once."""
        pending, timeout = self._pending, self.decision_timeout_s
        if pending is None or timeout is None or pending.deadline is not None:
            return
        if pending.ctx.request.id != request_id:
            return
        pending.deadline = time.monotonic() + timeout
        self.board.update(deadline=pending.deadline)
        self._on_game_loop(pending.shown.set)

    def _show_turn(self, ctx: DecisionContext) -> None:
        view = self.worded(ctx.view)
        view_html = render_view(view, self.language, self._last_seen, self._words)
        if view.history:
            self._last_seen = max(item.seq for item in view.history)
        self._note_out(view)
        self.board.update(
            status=YOUR_TURN,
            view_html=view_html,
            form_html=render_form(
                ctx.request,
                self.language,
                view,
                self._game,
                refused_options(ctx.request, ctx.validate),  # issue 38 item 3
            ),
            request_id=ctx.request.id,
            rules=self.rules_text if self.rules_text is not None else ctx.rules(self.language),
            error="",
            deadline=None,
        )

    def follow(self, view: SeatView) -> None:
        """The seat saw an event: its page shows the view now (items since its
        last turn marked new), unless the game is over or the seat was handed back
        (a page handed back follows it as a spectator: :attr:`watching`)."""
        status = self.board.get("status")
        if status == ENDED or (status == HANDED_BACK and not self.watching):
            return
        self._note_out(view)
        view = self.worded(view)
        self.board.update(view_html=render_view(view, self.language, self._last_seen, self._words))

    def _note_out(self, view: SeatView) -> None:
        """The first view in which the seat is no longer alive sets the page's
        "you are out" notice (it stays until the game ends)."""
        if self.out or seat_alive(view):
            return
        self.out = True
        self.board.update(out=out_words(view, self.language))

    def _answer_on_loop(self, request_id: object, answer: object, record: bool = True) -> Checked:
        """Runs on the game loop, so the referee's dry run never races the runner.
        ``record``: settle the decision with a legal answer (else only check it,
        and say which of its words the others will read changed)."""
        pending = self._pending
        if pending is None or pending.future.done() or pending.ctx.request.id != request_id:
            raise NoOpenDecision
        try:
            payload = pending.ctx.validate(answer)
        except IllegalDecision as err:
            message = refusal_words(err, pending.ctx.request, self.language)
        except RefereeError as err:
            message = for_people(str(err))
        else:
            if self.board.get("error"):
                self.board.update(error="")  # an earlier refusal no longer stands
            if record:
                # answered: an earlier time-out's notice and kept draft are done with
                self.board.update(notice="", unsent="")
                pending.future.set_result(AgentAnswer(payload))
                return Checked()
            decision = pending.ctx.request.decision
            return Checked(shown=shown_words(pending.ctx.view, decision, payload))
        if record:
            self.board.update(error=message)  # a reload shows it too
        return Checked(message)

    def _end_pending(self, answer: AgentAnswer) -> None:
        pending = self._pending
        if pending is not None and not pending.future.done():
            pending.future.set_result(answer)

    def _on_game_loop(self, work: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            # RuntimeError: the loop closed in between; nothing is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(work)

    def release(self) -> None:
        """The host handed this seat back to an AI: an open question goes to it."""
        self.board.update(status=HANDED_BACK, form_html="", request_id=None, deadline=None)
        self._on_game_loop(
            lambda: self._end_pending(
                AgentAnswer(None, note="handed back by the host", fallback_reason=HANDED_BACK)
            )
        )

    def finish(self, end_html: str, view_html: str | None = None) -> None:
        """The game is over: the results panel replaces the question (and, given
        ``view_html``, the final view replaces the page's view)."""
        changes: dict[str, Any] = {"status": ENDED, "end_html": end_html, "form_html": ""}
        if view_html is not None:
            changes["view_html"] = view_html
        self.board.update(request_id=None, deadline=None, out="", **changes)

    async def close(self) -> None:
        """The run is over; the page (its board) stays for the end screen."""

    # ------------------------------------------------------- the page side
    async def answer(self, request_id: object, answer: object) -> str:
        """'' when accepted, else the referee's refusal in words. Raises NoOpenDecision."""
        return (await self._on_loop(request_id, answer, True)).refusal

    async def check(self, request_id: object, answer: object) -> Checked:
        """The referee's dry run only: the refusal in words ('' when ``answer``
        would be accepted) and the words the others would read changed (the page
        asks before its confirmation, and shows them: WW-13's softened words)."""
        return await self._on_loop(request_id, answer, False)

    async def _on_loop(self, request_id: object, answer: object, record: bool) -> Checked:
        loop = self._loop
        if loop is None or loop.is_closed() or self._pending is None:
            raise NoOpenDecision
        done: asyncio.Future[Checked] = asyncio.get_running_loop().create_future()
        server_loop = asyncio.get_running_loop()

        def run() -> None:
            try:
                result: Any = self._answer_on_loop(request_id, answer, record)
                server_loop.call_soon_threadsafe(_settle, done, result, None)
            except BaseException as err:  # handed back to the server loop
                server_loop.call_soon_threadsafe(_settle, done, None, err)

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:
            raise NoOpenDecision from None
        return await asyncio.wait_for(done, 10.0)

    def rejoin(self) -> None:
        """The person is back after :meth:`leave`: the seat's next question is
        theirs again (those in between fell back, recorded ``quit``)."""
        if self.left:
            self.left = False
            self.board.update(status=WAITING)

    def leave(self) -> None:
        if self.board.get("status") == ENDED:
            return  # the game ended while the person was confirming: its end screen stays
        self.left = True
        self.board.update(status=LEFT, form_html="", request_id=None, deadline=None)
        self._on_game_loop(
            lambda: self._end_pending(
                AgentAnswer(None, note="the player left", fallback_reason=FALLBACK_QUIT)
            )
        )


def _chat_box(ctx: DecisionContext, answer: AgentAnswer | None) -> bool:
    """Whether the seat may still speak after this open day's ask (OD-7): the box
    stays while the day may ask it again (not after a refusal to play on, nor
    once its own messages are spent)."""
    if not any(f.name == SPEAK for f in ctx.request.fields):
        return False
    if answer is not None and answer.fallback_reason == FALLBACK_QUIT:
        return False
    posted = answer is not None and answer.payload is not None and posts(answer.payload)
    chat = open_chat(ctx.view, ctx.request.seat, "en")
    return chat is not None and chat.left - int(posted) > 0


def out_words(view: SeatView, language: str) -> str:
    """ "You are out of the game (voted out, day 2). ..." from the seat's own view."""
    t = ui(language)
    record = own_death(view)
    how = ""
    if record is not None and record.get("cause"):
        cause = str(record["cause"])
        words = t.get(f"cause_{cause}") or lang(language, view.variant).term(cause)
        when = phase_title(record.get("day"), "day", language, view.variant)
        how = t["out_how"].format(cause=words, when=when)
    return t["out_note"].format(how=how)


def _settle(
    future: asyncio.Future[Checked], result: Checked | None, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result or Checked())
