"""Nothing changes silently, in a real browser (Debian's chromium through
Playwright; issue 38 item 4): the confirmation quotes the softened words before
Confirm, and a question whose time ran out says so and keeps what was typed,
offering it again in the seat's next speech. Every wait waits on a condition."""

from __future__ import annotations

from typing import Any

from sandbox.web.run import WebRun
from tests.web.helpers import quiet
from tests.web.test_browser import STEP_MS, browser, page, shot  # noqa: F401 (fixtures)
from tests.web.test_no_silent_changes import LYNCH, SOFTENED, speech_turn, werewolf_table

KEPT = "I kept typing about seat 5 and the clock ran out."


def test_the_confirmation_quotes_the_softened_words(page: Any) -> None:  # noqa: F811
    web = WebRun(announce=quiet)
    try:
        client, thread = werewolf_table(web, soften=True)
        speech_turn(client, thread)  # earlier questions answered over HTTP
        assert page.goto(web.hub().url(thread.agents[7].audience)).status == 200
        page.wait_for_selector("#decision fieldset[data-field=speech] textarea")
        page.fill("#decision fieldset[data-field=speech] textarea", LYNCH)
        page.click("#send")
        page.wait_for_function("() => !document.querySelector('#confirm').hidden")
        assert page.is_visible("#confirm-shown")
        assert page.text_content("#confirm-shown-text") == SOFTENED
        assert "Your words will read:" in page.text_content("#confirm-shown")
        shot(page, "seat-softened")
        page.click("#confirm-no")  # back to editing: the quote goes with the confirmation
        page.fill("#decision fieldset[data-field=speech] textarea", "Seat 3 was quiet.")
        page.click("#send")
        page.wait_for_function("() => !document.querySelector('#confirm').hidden")
        assert not page.is_visible("#confirm-shown")
    finally:
        web.stop()


def test_a_time_out_says_so_and_keeps_the_words(page: Any) -> None:  # noqa: F811
    web = WebRun(announce=quiet)
    try:
        client, thread = werewolf_table(web, soften=False, timeout_s=8.0)
        first = speech_turn(client, thread)  # its clock runs from here
        page.goto(web.hub().url(thread.agents[7].audience))
        page.fill("#decision fieldset[data-field=speech] textarea", KEPT)
        page.wait_for_function("() => !document.querySelector('#notice').hidden")
        assert page.text_content("#notice-text") == "Time ran out: the referee passed for you."
        assert page.text_content("#unsent-text") == KEPT
        shot(page, "seat-timed-out")
        # the seat's next speech (round 2) opens with the words it did not send
        page.wait_for_function(
            """(old) => { const f = document.querySelector('#decision');
                 const box = f && f.querySelector('fieldset[data-field=speech] textarea');
                 return box && f.dataset.request !== old && box.value !== ''; }""",
            arg=first["request_id"],
            timeout=STEP_MS,
        )
        assert page.input_value("#decision fieldset[data-field=speech] textarea") == KEPT
    finally:
        web.stop()
