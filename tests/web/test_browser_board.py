"""The board to read at a glance, in a real browser (Debian's chromium through
Playwright; issue 38 item 3): a refusal is scrolled into view beside the Send
button on a phone, and the history is folded by day with the current day open.
Every wait waits on a condition."""

from __future__ import annotations

from typing import Any

from sandbox.web.run import WebRun
from tests.web.helpers import quiet
from tests.web.test_browser import (  # noqa: F401 (browser: a fixture)
    STEP_MS,
    _seat_url,
    browser,
    fill_and_send,
    killer_seat3_game,
    play_until,
    shot,
    wait_turn_or_end,
)
from tests.web.test_no_silent_changes import leave, speech_turn, werewolf_table

IN_VIEW = """(id) => { const box = document.getElementById(id).getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight + 1; }"""


def test_a_refusal_is_scrolled_into_view(browser: Any, tmp_path: Any) -> None:  # noqa: F811
    """Seed 10: seat 3 speaks with twelve seats to accuse and to vouch for, a
    form taller than a low window. Accusing and vouching for one seat is refused
    (KG-14) while the person reads the top of the page: the refusal is scrolled
    into view, beside the Send button."""
    web = WebRun(announce=quiet)
    context = browser.new_context(viewport={"width": 1100, "height": 480})
    context.set_default_timeout(STEP_MS)
    try:
        killer_seat3_game(web, tmp_path)
        page = context.new_page()
        page.goto(_seat_url(web, 3))
        request = play_until(page, "fieldset[data-field=accuse]", wait_turn_or_end(page, None))
        assert request is not None, "seat 3 never spoke"
        accuse = page.locator("fieldset[data-field=accuse] input").first
        accuse.check()
        seat = accuse.get_attribute("value")
        page.locator(f"fieldset[data-field=vouch] input[value='{seat}']").check()
        page.evaluate(
            """() => { window.scrollTo(0, 0); document.querySelector('#turn').scrollTop = 0;
                       document.querySelector('#send').click(); }"""
        )
        page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
        assert "(rule KG-14)" in page.text_content("#error")
        page.wait_for_function(IN_VIEW, arg="error")
        assert page.evaluate(IN_VIEW, "send")  # the refusal and the button, together
        shot(page, "seat-refusal-in-view")
    finally:
        context.close()
        web.stop()


def test_the_history_is_folded_by_day(browser: Any, tmp_path: Any) -> None:  # noqa: F811
    web = WebRun(announce=quiet)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(STEP_MS)
    try:
        killer_seat3_game(web, tmp_path, 5)
        page = context.new_page()
        page.goto(_seat_url(web, 3))
        request = wait_turn_or_end(page, None)
        # play on until the history holds two days
        while request is not None and page.locator("#view details.day").count() < 3:
            fill_and_send(page, "")
            request = wait_turn_or_end(page, request)
        folds = page.locator("#view details.day")
        assert folds.count() >= 3
        last = folds.nth(folds.count() - 1)
        assert last.get_attribute("open") is not None  # the current day is open
        opened = "() => document.querySelectorAll('#view details.day')[1].open"
        was = page.evaluate(opened)
        folds.nth(1).locator("summary").click()  # a person opens (or closes) an earlier day
        page.wait_for_function(f"() => ({opened})() === {'false' if was else 'true'}")
        if request is not None:  # ... and it stays so when the page is redrawn
            fill_and_send(page, "")
            after = wait_turn_or_end(page, request)
            if after is not None:
                assert page.evaluate(opened) is (not was)
                # a day the person left alone follows the page: the setup, long
                # past and sent open only while it was new, is closed now
                setup = "() => document.querySelectorAll('#view details.day')[0].open"
                assert page.evaluate(setup) is False
        shot(page, "seat-history-days")
    finally:
        context.close()
        web.stop()


def test_the_now_panel_opens_the_rules_in_full(browser: Any) -> None:  # noqa: F811
    web = WebRun(announce=quiet)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(STEP_MS)
    try:
        client, thread = werewolf_table(web, soften=False)
        speech_turn(client, thread)
        page = context.new_page()
        page.goto(web.hub().url(thread.agents[7].audience))
        link = page.locator("#view section.now [data-open-rules]")
        link.wait_for()
        assert "soften words" in page.text_content("#view section.now dl.rulings")
        assert not page.is_visible("#rules")
        link.click()
        page.wait_for_selector("#rules:not([hidden])")
        assert "WW-13" in page.text_content("#rules-text")
        shot(page, "seat-now-rulings")
        leave(client, thread)
    finally:
        context.close()
        web.stop()
