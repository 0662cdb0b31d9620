"""The lobby in a real browser (issue 38 item 2): Debian's chromium driven by
Playwright. A host creates a Killer table from the lobby's form with two seats
for people and baseline bots on the rest; two people take their seats from
the lobby's list (the table starts once both are taken) and play the whole
game through their seat pages; one of them leaves mid-game and rejoins from
its seat's lobby page; the host asks for a rematch and both play it too.

Every wait is on a condition, with a bound that makes a stuck test fail."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from sandbox.session.gamefile import parse_config
from sandbox.web.lobby import Lobby
from tests.chromium import require_chromium
from tests.web import test_browser
from tests.web.helpers import quiet
from tests.web.test_browser import current_request, fill_and_send, script_errors

STEP_MS = 60_000
GAME_S = 300.0  # a whole game's bound on a loaded machine (never a timing assertion)

playwright_api = pytest.importorskip("playwright.sync_api")
require_chromium()
browser = test_browser.browser  # its chromium, launched once for this module too


def killer_lobby(out: Path) -> Lobby:
    killer = {"variant": "killer", "rules": {"players": 11}, "default_agent": {"kind": "random"}}
    return Lobby({"killer": parse_config(killer)}, out=out, pace_s=0, seed=4, announce=quiet)


def person(browser: Any) -> tuple[Any, Any, list[str]]:
    """A person's own browser (context), its page and its script errors."""
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.set_default_timeout(STEP_MS)
    context.on("dialog", lambda dialog: dialog.accept())  # "Leave the game?" → yes
    return context, context.new_page(), script_errors(context)


def take_seat(page: Any, lobby_url: str, seat: int) -> str:
    """From the lobby's list to the seat's page; the seat's token."""
    page.goto(lobby_url)
    page.click(f"form.pick button[data-seat='{seat}']")
    page.wait_for_selector("#open-seat")
    token: str = page.url.split("t=")[1]
    page.click("#open-seat")
    # before the table starts the page has no view yet: it says it waits
    page.wait_for_function("() => document.querySelector('#status').textContent.length > 0")
    assert page.text_content("#title") == f"Seat {seat}"
    return token


def ended(page: Any) -> bool:
    return bool(page.evaluate("() => document.body.classList.contains('ended')"))


def play_both(pages: list[Any], tick: Any = None) -> None:
    """Answers every question on both pages like a person (the first option)
    until both show the end screen; ``tick(answered)`` after each round (a
    person leaving and coming back)."""
    answered: dict[int, str | None] = {}
    deadline = time.monotonic() + GAME_S
    while not all(ended(p) for p in pages):
        assert time.monotonic() < deadline, "the game did not end"
        idle = True
        for index, page in enumerate(pages):
            request = None if ended(page) else current_request(page)
            if request is not None and request != answered.get(index):
                fill_and_send(page, "")
                answered[index] = request
                idle = False
        if tick is not None:
            tick(answered)
        if idle:
            time.sleep(0.05)


class LeaveAndRejoin:
    """Seat 2's person leaves after its first answer, stays away until the
    referee has answered for it (its history says so), then rejoins from its
    seat's lobby page; seat 1's person plays on meanwhile."""

    def __init__(self, page: Any, rejoin_url: str) -> None:
        self.page, self.rejoin_url = page, rejoin_url
        self.state = "playing"

    def __call__(self, answered: dict[int, str | None]) -> None:
        page = self.page
        if self.state == "playing" and answered.get(1) is not None and not ended(page):
            page.click("#leave")
            page.wait_for_function("() => document.body.classList.contains('released')")
            self.state = "away"
        elif self.state == "away" and "fallback: you left" in page.text_content("#view"):
            page.goto(self.rejoin_url)
            page.click("#rejoin")
            page.wait_for_function("() => document.querySelector('#status').textContent !== ''")
            assert not page.evaluate("() => document.body.classList.contains('released')")
            self.state = "back"


def test_two_people_play_a_table_from_the_lobby_rejoin_and_rematch(
    browser: Any, tmp_path: Path
) -> None:
    lobby = killer_lobby(tmp_path)
    contexts, errors = [], []
    try:
        host_context, host, host_errors = person(browser)
        one_context, one, one_errors = person(browser)
        two_context, two, two_errors = person(browser)
        contexts = [host_context, one_context, two_context]
        errors = [host_errors, one_errors, two_errors]

        host.goto(lobby.url)
        host.fill("#open", "1, 2")
        host.select_option("#ai", "baseline")
        host.click("#create")
        host.wait_for_selector("#seats tr[data-seat='2'][data-state='free']")
        assert "waiting for its people" in host.text_content("#status")

        take_seat(one, lobby.url, 1)
        # seat 1 is no longer offered; seat 2 still is
        two.goto(lobby.url)
        assert two.query_selector("form.pick button[data-seat='1']") is None
        token = take_seat(two, lobby.url, 2)
        host.wait_for_selector("#seats tr[data-seat='2'][data-state='taken']")

        away = LeaveAndRejoin(two, lobby.link("/lobby/seat", token))
        play_both([one, two], away)
        assert away.state == "back", away.state
        for page in (one, two):
            page.wait_for_selector("#end section.recap")
        (first,) = (tmp_path / "lobby" / "table-1").glob("*.jsonl")
        outcome = json.loads(first.read_text("utf-8").splitlines()[-1])
        assert "quit" in outcome["stats"]["fallbacks"].get("2", {})  # while away

        host.wait_for_selector("#rematch")  # the host page refreshes itself
        host.click("#rematch")
        for page in (one, two):  # the same pages follow the new game
            page.wait_for_function("() => !document.body.classList.contains('ended')")
        play_both([one, two])
        table = lobby.table(1)
        assert len(table.seeds) == 2 and table.seeds[0] != table.seeds[1]
        assert len(list((tmp_path / "lobby" / "table-1").glob("*.jsonl"))) == 2

        host.wait_for_selector("#rematch")
        host.click("#close")
        host.wait_for_selector("#new-table")
        assert "No table yet" in host.text_content("#tables")
        assert all(e == [] for e in errors)
    finally:
        for context in contexts:
            context.close()
        lobby.stop()
