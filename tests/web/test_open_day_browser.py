"""OD-7 in a real browser (Debian's chromium driven by Playwright): a person at
a Killer table in open discussion, among baseline bots, is accused in the day's
first round and answers at once in the next one: the answer closes that round,
so it comes before the next AI message. The record replays exactly.

Every wait waits on a condition (the page's form, the chat's lines); none on time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.agents.human.seat import HumanAgent
from sandbox.core.events import RoundInterjected
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext
from sandbox.games.killer.bot import BaselineBot
from sandbox.session.api import new_game, play_sync
from sandbox.session.play import PlayResult
from sandbox.session.replay import replay
from sandbox.transcript import read_transcript
from sandbox.web.run import WebRun
from tests.chromium import CHROMIUM, require_chromium
from tests.chromium import CHROMIUM_ARGS as ARGS
from tests.web.helpers import quiet

playwright_api = pytest.importorskip("playwright.sync_api")

require_chromium()

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
STEP_MS = 60_000  # a bound that makes a stuck test fail, never a timing assertion
PERSON = 3
ACCUSATION = "Seat 3 is a killer, I am sure of it."
REPLY = "Not me: I was home all night. Why accuse me so fast?"


class TableBot(Agent):
    """A baseline bot that never kills the person (the test needs them at the
    day), and on the open day's first round: the first seat asked accuses the
    person, the others wait (so the chat opens with the accusation alone)."""

    kind = "baseline"

    def __init__(
        self, seat: int, said: dict[str, int], slow: threading.Event | None = None
    ) -> None:
        self.seat, self.said, self.bot = seat, said, BaselineBot(seat)
        self.slow = slow  # round 1's answer waits for the test to set it

    def attach(self, seating: Any) -> None:
        self.bot.attach(seating)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        request = ctx.request
        if request.decision == "kill":
            options = request.fields[0].legal()
            return AgentAnswer({"target": next(o for o in options if o not in (None, PERSON))})
        if request.decision == "message" and ctx.view.public["open_day"]["round"] == 1:
            if self.slow is not None:
                await asyncio.to_thread(self.slow.wait, STEP_MS / 1000)
            if "accuser" not in self.said:
                self.said["accuser"] = self.seat
                return AgentAnswer({"speak": True, "speech": ACCUSATION, "accuse": [PERSON]})
            return AgentAnswer({"speak": False})
        return await self.bot.decide(ctx)


@pytest.fixture
def page() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        context.set_default_timeout(STEP_MS)
        errors: list[str] = []
        context.on("weberror", lambda error: errors.append(str(error.error)))
        opened = context.new_page()
        opened.on("dialog", lambda dialog: dialog.accept())  # "Leave game?" -> yes
        yield opened
        browser.close()
        assert errors == []


def next_form(page: Any, after: str | None) -> str:
    page.wait_for_function(
        """(after) => document.querySelector('#decision') &&
             document.querySelector('#decision').dataset.request !== after""",
        arg=after,
    )
    found: str = page.evaluate("() => document.querySelector('#decision').dataset.request")
    return found


def answer_anything(page: Any) -> None:
    """A night's question: the first option offered, sent and confirmed."""
    for box in page.query_selector_all("#decision fieldset[data-kind=choice]"):
        box.query_selector("label.option").click()
    for box in page.query_selector_all("#decision fieldset[data-kind=select]"):
        box.query_selector("select").select_option(index=1)
    page.click("#send")
    page.wait_for_selector("#confirm:not([hidden])")
    page.click("#confirm-yes")


def chat(page: Any) -> list[tuple[str, str, bool]]:
    lines: list[list[Any]] = page.evaluate(
        """() => Array.from(document.querySelectorAll('#chat li.chat-line')).map(
             li => [li.querySelector('.who').textContent, li.querySelector('.said').textContent,
                    li.classList.contains('mine')])"""
    )
    return [(str(who), str(text), bool(mine)) for who, text, mine in lines]


class Table(threading.Thread):
    """Seed 4's Killer game in open discussion, the person at seat 3, played to
    its end (the page's person leaves once the test is done)."""

    def __init__(self, web: WebRun, out: Path, slow: threading.Event | None = None) -> None:
        super().__init__(daemon=True)
        self.web, self.out, self.said = web, out, dict[str, int]()
        self.game = new_game("killer", seed=4, players=11, discussion="open")
        person = HumanAgent("browser", host=web, decision_timeout_s=600)
        self.seats: dict[int, Agent] = {
            s: person if s == PERSON else TableBot(s, self.said, slow if s == 11 else None)
            for s in self.game.seats
        }
        self.result: PlayResult | None = None

    def run(self) -> None:
        self.result = play_sync(self.game, self.seats, transcript=self.out)

    def to_the_open_day(self, page: Any) -> str:
        """The page at the open day's first ask (the night answered on the way)."""
        while not self.web._seat_pages:  # the page exists once the seat is seated
            self.join(0.01)
        page.goto(self.web.hub().url(self.web._seat_pages[PERSON]))
        request = next_form(page, None)
        while page.query_selector("#decision[data-speak]") is None:
            answer_anything(page)
            request = next_form(page, request)
        return request

    def end(self, page: Any) -> list[Any]:
        """The person leaves; the game ends, and its record replays exactly."""
        page.click("#leave")  # the referee plays the rest of the seat's decisions
        self.join(STEP_MS / 1000)
        assert not self.is_alive() and self.result is not None
        path = self.result.transcript_path
        assert path is not None and replay(path) is None
        return read_transcript(path).events


def test_od7_a_person_answers_an_accusation_before_the_next_ai_message(
    page: Any, tmp_path: Path
) -> None:
    web = WebRun(announce=quiet)
    table = Table(web, tmp_path)
    said = table.said
    table.start()
    try:
        request = table.to_the_open_day(page)
        # round 1: the chat is empty and the box open, with the messages left today
        assert chat(page) == []
        assert "3 more message" in page.text_content("#chat-left")
        page.click("#wait")
        request = next_form(page, request)
        # round 2: the accusation is in the chat; the person answers it at once
        accuser = said["accuser"]
        assert chat(page) == [(f"Seat {accuser}", ACCUSATION, False)]
        assert "Seat 3" in page.text_content("#chat li.chat-line .claims")
        page.fill("#decision fieldset[data-kind=text] textarea", REPLY)
        page.click("#send")
        request = next_form(page, request)
        lines = chat(page)
        assert lines[:2] == [(f"Seat {accuser}", ACCUSATION, False), ("You", REPLY, True)]
        assert "2 more message" in page.text_content("#chat-left")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "seat-open-day-chat.png"), full_page=True)
        events = table.end(page)
    finally:
        web.stop()
    interjected = [e for e in events if isinstance(e, RoundInterjected)]
    assert interjected and (interjected[0].seat, interjected[0].round) == (PERSON, 2)


def test_od7_a_message_sent_between_rounds_goes_out_as_the_next_round_opens(
    page: Any, tmp_path: Path
) -> None:
    """The box stays open while the round waits for a slow AI seat after the
    person passed: a message sent then is held and is the next round's first."""
    web = WebRun(announce=quiet)
    slow = threading.Event()
    table = Table(web, tmp_path, slow)
    table.start()
    try:
        table.to_the_open_day(page)
        page.click("#wait")  # round 1 now waits for seat 11 alone
        page.wait_for_selector("#decision[data-between]")
        assert page.is_disabled("#wait")
        page.fill("#decision fieldset[data-kind=text] textarea", REPLY)
        page.click("#send")
        page.wait_for_selector("#chat-queued:not([hidden])")
        slow.set()  # seat 11 answers: round 1 closes, round 2 asks, the page sends
        page.wait_for_function(
            "(reply) => Array.from(document.querySelectorAll('#chat li.chat-line.mine'))"
            ".some(li => li.querySelector('.said').textContent === reply)",
            arg=REPLY,
        )
        lines = chat(page)
        assert lines[0] == (f"Seat {table.said['accuser']}", ACCUSATION, False)
        assert lines[1] == ("You", REPLY, True)
        events = table.end(page)
    finally:
        slow.set()
        web.stop()
    interjected = [e for e in events if isinstance(e, RoundInterjected)]
    assert interjected and (interjected[0].seat, interjected[0].round) == (PERSON, 2)
