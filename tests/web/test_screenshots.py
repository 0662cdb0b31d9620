"""The screenshots in docs/screenshots/ (issue 38): a person's board, card and
end-of-game story in the browser, and the viewer's reader mode, taken here by
Playwright on Debian's chromium from a seeded game.

The lobby of ``sandbox serve`` (issue 38 item 2) with one table waiting for its
people is taken here too.

Kept up to date like docs/sample-game.html: each picture has beside it the
text it shows (``<name>.txt``), and this test fails when the pages now show
other words. Regenerate the pictures and their texts with

    SANDBOX_SCREENSHOTS=update .venv/bin/python -m pytest tests/web/test_screenshots.py

(a picture's pixels depend on the machine's fonts, so only its words are compared)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.session.gamefile import parse_config
from sandbox.web.lobby import Lobby, TableSettings
from sandbox.web.run import WebRun
from tests.chromium import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.web.helpers import quiet
from tests.web.test_browser import _seat_url, fill_and_send, killer_seat3_game, wait_turn_or_end

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "screenshots"
UPDATE = os.environ.get("SANDBOX_SCREENSHOTS") == "update"
STEP_MS = 60_000

playwright_api = pytest.importorskip("playwright.sync_api")
require_chromium()


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        context.set_default_timeout(STEP_MS)
        yield context.new_page()
        browser.close()


def keep(page: Any, selector: str, name: str) -> None:
    """The element's picture and words: written under UPDATE, else its words
    checked against the committed ones."""
    element = page.locator(selector).first
    words = " ".join(element.inner_text().split()) + "\n"
    text, picture = DOCS / f"{name}.txt", DOCS / f"{name}.png"
    if UPDATE:
        DOCS.mkdir(parents=True, exist_ok=True)
        element.screenshot(path=str(picture))
        text.write_text(words, "utf-8")
        return
    assert picture.exists(), f"{picture} is missing: regenerate (see this module)"
    assert text.read_text("utf-8") == words, f"{picture} is stale: regenerate (see this module)"


def test_the_seat_page_and_its_end(page: Any, tmp_path: Path) -> None:
    """Killer, seed 10, seat 3 (a killer) a person answering each question with
    its first option, the other seats the game file's own (the reference bot at
    level 4, as a person meets it): the card and board at its first question,
    the story at the end."""
    web = WebRun(announce=quiet)
    try:
        game = killer_seat3_game(web, tmp_path, 10)
        page.goto(_seat_url(web, 3))
        request = wait_turn_or_end(page, None)
        keep(page, "#view section.card", "card")
        keep(page, "#view section.board", "board")
        while request is not None:
            fill_and_send(page, "")
            request = wait_turn_or_end(page, request)
        page.wait_for_selector("#end section.recap")
        keep(page, "#end section.recap", "story")
        game.finish()
    finally:
        web.stop()


def test_the_viewer_in_reader_mode(page: Any) -> None:
    page.goto((ROOT / "docs" / "sample-game.html").as_uri() + "#reader")
    page.wait_for_selector("#recap")
    keep(page, "#recap", "viewer-story")


def test_the_lobby(page: Any, tmp_path: Path) -> None:
    """A lobby serving Killer at 11 seats, one table waiting for the people of
    seats 1 and 2 (the bots' seats are not listed)."""
    killer = parse_config({"variant": "killer", "rules": {"players": 11}})
    lobby = Lobby({"killer": killer}, out=tmp_path, pace_s=0, seed=1, announce=quiet)
    try:
        lobby.create(TableSettings("killer", (1, 2), start_when_full=False))
        page.goto(lobby.url)
        page.wait_for_selector("form.pick button[data-seat='2']")
        keep(page, "main", "lobby")
    finally:
        lobby.stop()
