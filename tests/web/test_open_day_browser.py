"""OD-7 in a real browser (Debian's chromium driven by Playwright): a person at
a Killer table in open discussion, among baseline bots, is accused in the day's
first round and answers at once in the next one: the answer closes that round,
so it comes before the next AI message. The record replays exactly.

Every wait waits on a condition (the page's form, the chat's lines); none on time.
"""

from __future__ import annotations

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

    def __init__(self, seat: int, said: dict[str, int]) -> None:
        self.seat, self.said, self.bot = seat, said, BaselineBot(seat)

    def attach(self, seating: Any) -> None:
        self.bot.attach(seating)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        request = ctx.request
        if request.decision == "kill":
            options = request.fields[0].legal()
            return AgentAnswer({"target": next(o for o in options if o not in (None, PERSON))})
        if request.decision == "message" and ctx.view.public["open_day"]["round"] == 1:
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


def test_od7_a_person_answers_an_accusation_before_the_next_ai_message(
    page: Any, tmp_path: Path
) -> None:
    web = WebRun(announce=quiet)
    said: dict[str, int] = {}
    game = new_game("killer", seed=4, players=11, discussion="open")
    person = HumanAgent("browser", host=web, decision_timeout_s=600)
    seats = {s: person if s == PERSON else TableBot(s, said) for s in game.seats}
    result: dict[str, PlayResult] = {}
    thread = threading.Thread(
        target=lambda: result.update(done=play_sync(game, seats, transcript=tmp_path)),
        daemon=True,
    )
    thread.start()
    try:
        while not web._seat_pages:  # the page exists once the seat is seated
            thread.join(0.01)
        page.goto(web.hub().url(web._seat_pages[PERSON]))
        request = next_form(page, None)
        while page.query_selector("#decision[data-speak]") is None:  # the night first
            answer_anything(page)
            request = next_form(page, request)
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
        page.click("#leave")  # the referee plays the rest of the seat's decisions
        thread.join(STEP_MS / 1000)
        assert not thread.is_alive()
    finally:
        web.stop()
    played = result["done"]
    assert played.transcript_path is not None
    events = read_transcript(played.transcript_path).events
    interjected = [e for e in events if isinstance(e, RoundInterjected)]
    assert interjected and (interjected[0].seat, interjected[0].round) == (PERSON, 2)
    assert replay(played.transcript_path) is None
