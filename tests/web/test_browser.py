"""The pages in a real browser: Debian's chromium driven by Playwright.

Plays a whole Killer game as one seat among bots through the page, answers
illegally once, reloads mid-game, reads the end screen; takes a seat over and
hands it back from the host panel; follows a spectator page; checks that a
hostile speech stays text and that a wrong token gets 403. Screenshots of the
main screens go to build/screenshots/.
"""

from __future__ import annotations

import shutil
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.session.gamefile import parse_config
from sandbox.web.run import WebRun
from tests.chromium import CHROMIUM, require_chromium
from tests.chromium import CHROMIUM_ARGS as ARGS
from tests.web.helpers import Client, SessionThread, other_token, quiet
from tests.web.test_control import PanelGame, host_client

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
HOSTILE = "I am a civilian. <script>window.pwned = 1</script><b>bold</b>"
# The longest a step may take on a loaded machine (a bound that makes a stuck test
# fail, never a timing assertion): every wait below waits on a condition.
STEP_MS = 60_000

playwright_api = pytest.importorskip("playwright.sync_api")

require_chromium()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def script_errors(context: Any) -> list[str]:
    """Every uncaught script error of the context's pages, to assert there were
    none: an exception in a handler (a button looked up after its form was
    replaced) otherwise only shows as a later symptom, a draft that stays."""
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    return errors


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(STEP_MS)
    errors = script_errors(context)
    yield context.new_page()
    context.close()
    assert errors == []


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def current_request(page: Any) -> str | None:
    found: str | None = page.evaluate(
        "() => { const f = document.querySelector('#decision'); return f && f.dataset.request; }"
    )
    return found


def wait_turn_or_end(page: Any, after: str | None) -> str | None:
    """The next open question's id (other than ``after``), or None at the end."""
    page.wait_for_function(
        """(after) => document.body.classList.contains('ended') ||
             (document.querySelector('#decision') &&
              document.querySelector('#decision').dataset.request !== after)""",
        arg=after,
        timeout=STEP_MS,
    )
    return (
        None
        if page.evaluate("() => document.body.classList.contains('ended')")
        else (current_request(page))
    )


def fill_and_send(page: Any, speech: str) -> None:
    """Answer the open question like a person: a speech, the first seat offered."""
    for box in page.query_selector_all("#decision fieldset"):
        kind = box.get_attribute("data-kind")
        if kind == "text":
            box.query_selector("textarea").fill(speech)
        elif kind == "choice":
            box.query_selector("label.option").click()
        elif kind == "select":
            box.query_selector("select").select_option(index=1)
    page.click("#send")
    # The confirmation appears only after the referee's dry run (/api/check) has
    # answered: wait for it (or for a refusal), never test for it at once.
    page.wait_for_function(
        "() => !document.querySelector('#confirm').hidden ||"
        " document.querySelector('#error').textContent !== ''",
        timeout=STEP_MS,
    )
    if page.is_visible("#confirm"):
        page.click("#confirm-yes")


def play_until(page: Any, selector: str, request: str | None) -> str | None:
    """Answers each question like a person until one shows ``selector``; its id
    (None: the game ended first)."""
    while request is not None and page.query_selector(selector) is None:
        fill_and_send(page, "")
        request = wait_turn_or_end(page, request)
    return request


def test_a_whole_killer_game_through_the_page(page: Any, tmp_path: Path) -> None:
    web = WebRun(announce=quiet)
    try:
        game = killer_seat3_game(web, tmp_path, 5)
        url = _seat_url(web, 3)
        assert page.goto(url).status == 200
        request = wait_turn_or_end(page, None)
        shot(page, "seat-question")
        tried_illegal = reloaded = False
        answered = 0
        while request is not None:
            # a vote or a night opinion: its target is required (a speech's structured
            # claim is an optional choice, so sending nothing there is legal)
            target = "#decision fieldset[data-kind=choice][data-field=target]"
            has_choice = page.query_selector(target) is not None
            if has_choice and not tried_illegal:
                page.click("#send")  # nothing chosen: the referee explains
                page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
                assert "target" in page.text_content("#error")
                shot(page, "seat-refused")
                tried_illegal = True
            if answered == 1 and not reloaded:
                page.reload()  # mid-game: the same question comes back
                assert wait_turn_or_end(page, None) == request
                reloaded = True
            fill_and_send(page, HOSTILE)
            if page.is_visible("#confirm"):
                shot(page, "seat-confirm")
            answered += 1
            request = wait_turn_or_end(page, request)
        record = game.finish(60)
        assert tried_illegal and reloaded and answered >= 2
        page.wait_for_selector("#end table.results")
        shot(page, "seat-end")
        rows = page.query_selector_all("#end table.results tbody tr")
        assert len(rows) == len(record.roles) == 12
        said = {"win": "won", "lose": "lost", "draw": "draw"}
        for row in rows:
            seat = int(row.get_attribute("data-seat"))
            cells = [c.text_content() for c in row.query_selector_all("td")]
            you = " (you)" if seat == 3 else ""
            result = said[record.outcome.results[seat]]
            assert cells == [f"Seat {seat}{you}", record.roles[seat], result]
        # the results panel over the final view: winners, the seat's own result, and
        # no stale card, "Now" or question under it
        assert page.text_content("#end .winners").startswith("Winners: ")
        assert f"(you were {record.roles[3]})" in page.text_content("#end .own")
        assert page.query_selector("#view section.card") is None
        assert page.query_selector("#view section.now") is None
        assert not page.is_visible("#turn") and not page.is_visible("#leave")
        assert page.locator("#view section.history").count() == 1
        # the hostile speech is text in the history, never markup
        said = page.locator("#view blockquote.said", has_text="window.pwned").first
        assert "<script>" in said.text_content()
        assert page.evaluate("() => window.pwned === undefined")
        assert page.evaluate("() => document.querySelectorAll('#view script, #view b').length") == 0
    finally:
        web.stop()


def test_take_over_hand_back_and_a_live_spectator(browser: Any, tmp_path: Path) -> None:
    web = WebRun(host_panel=True, announce=quiet)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    context.set_default_timeout(STEP_MS)
    errors = script_errors(context)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        game.ready(host_client(web))
        panel = context.new_page()
        panel.goto(web.hub().url(next(a for a in web.hub().audiences() if a.kind == "host")))
        row4 = panel.locator("#seats tr[data-seat='4']")
        row4.get_by_role("button", name="Hand to a person").click()
        person_url = row4.locator("a").get_attribute("href", timeout=STEP_MS)
        # seat 4's own view may be watched in full; seat 6's could help seat 4's
        # person, so it is narrowed to what every player is told (fair play, issue 38)
        row4.get_by_role("button", name="Spectator link").click()
        watch_url = panel.locator("#links a").first.get_attribute("href", timeout=STEP_MS)
        row6 = panel.locator("#seats tr[data-seat='6']")
        row6.get_by_role("button", name="Spectator link").click()
        other_url = panel.locator("#links a").nth(1).get_attribute("href", timeout=STEP_MS)
        shot(panel, "host-panel")

        person = context.new_page()
        person.goto(person_url)
        # the taken-over seat's page shows its view at once, before its first decision
        person.wait_for_selector("#view section.card", timeout=STEP_MS)
        assert "You are dealt the" in person.text_content("#view section.history")
        spectator = context.new_page()
        spectator.goto(watch_url)
        spectator.wait_for_selector("#view section.card")
        before = spectator.text_content("#view")
        other = context.new_page()
        other.goto(other_url)
        other.wait_for_selector("#view p.narrowed")
        assert not other.is_visible("#view section.card")
        panel.get_by_role("button", name="Start the game").click()

        first = wait_turn_or_end(person, None)
        assert first is not None
        assert "Seat 4" in person.text_content("#title")
        fill_and_send(person, "Seat 4 speaking, now played by a person.")
        second = wait_turn_or_end(person, first)
        assert second is not None
        row4.get_by_role("button", name="Hand back to AI").click()
        person.wait_for_function("() => document.querySelector('#status.handed_back') !== null")
        shot(person, "seat-handed-back")
        assert not person.is_visible("#leave") and not person.is_visible("#turn")  # no actions
        spectator.wait_for_function(
            "(old) => document.querySelector('#view').textContent !== old",
            arg=before,
            timeout=STEP_MS,
        )
        shot(spectator, "spectator")
        game.join(30)
        assert not game.is_alive()
        assert errors == []
    finally:
        context.close()
        web.stop()


def test_wrong_token_is_403_and_the_phone_layout(browser: Any) -> None:
    web = WebRun(announce=quiet)
    try:
        from sandbox.web.seat import HumanBrowserAgent

        seat = HumanBrowserAgent(7, web.hub())
        phone = browser.new_context(viewport={"width": 390, "height": 844})
        phone.set_default_timeout(STEP_MS)
        page = phone.new_page()
        bad = seat.url.replace(seat.token, other_token(seat.token))
        assert page.goto(bad).status == 403
        assert page.goto(seat.url).status == 200
        page.wait_for_function("() => document.querySelector('#status').textContent.length > 0")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390  # nothing sticks out sideways on a phone
        page.click("#rules-open")
        assert page.is_visible("#rules")
        page.keyboard.press("Escape")
        assert not page.is_visible("#rules")
        shot(page, "seat-phone")
        phone.close()
    finally:
        web.stop()


def killer_seat3_game(
    web: WebRun,
    tmp_path: Path,
    seed: int = 10,
    *,
    bots: dict[str, object] | None = None,
    **seat: object,
) -> SessionThread:
    """configs/killer_human_browser.toml (seat 3 a person) on a free port, at full
    speed unless ``seat`` says otherwise, started; ``bots``: the other seats'
    agent instead of the file's (the reference bot at level 4)."""
    raw = tomllib.loads((ROOT / "configs" / "killer_human_browser.toml").read_text())
    raw["agent"][0].update({"port": 0, "pace_s": 0, **seat})
    if bots is not None:
        raw["default_agent"] = bots
    game = SessionThread(parse_config(raw), seed, tmp_path, web)
    game.start()
    return game


def _seat_url(web: WebRun, seat: int) -> str:
    deadline = time.monotonic() + STEP_MS / 1000
    while seat not in web._seat_pages:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return web.hub().url(web._seat_pages[seat])


def test_chromium_is_debians() -> None:
    assert shutil.which("chromium") == str(CHROMIUM)


def test_out_of_the_game_the_page_follows_at_reading_pace(page: Any, tmp_path: Path) -> None:
    """Seed 37: seat 3 (a civilian) is killed on night 1 and owes last words. The
    page opens 6 s after that question was asked: its 30 s clock starts only then
    (a clock that ran would read 24 s or less; 25 s leaves 5 s for a loaded machine);
    it says the seat is out, and goes on following the game (paced) to its end."""
    web = WebRun(announce=quiet)
    try:
        game = killer_seat3_game(web, tmp_path, 37, pace_s=0.05, decision_timeout_s=30)
        _seat_url(web, 3)
        board = web._seat_pages[3].board
        deadline = time.monotonic() + STEP_MS / 1000
        while board.get("status") != "your_turn":
            assert time.monotonic() < deadline, "the last words were never asked"
            time.sleep(0.01)
        time.sleep(6)  # nobody looks yet: the clock must not run
        page.goto(_seat_url(web, 3))
        page.wait_for_function("() => !document.querySelector('#countdown').hidden")
        left = page.text_content("#countdown-s")
        minutes, seconds = left.split(":")
        assert int(minutes) * 60 + int(seconds) >= 25, left  # not 24 s or less
        assert page.is_visible("#out")
        assert "You are out of the game (killed in the night, Day 1)" in page.text_content("#out")
        shot(page, "seat-out")
        fill_and_send(page, "I was a civilian.")
        page.wait_for_function("() => !document.querySelector('#decision')")
        seen = page.evaluate("() => document.querySelectorAll('#view li').length")
        for _ in range(2):  # the page keeps following the game after the seat is out
            page.wait_for_function(
                "(n) => document.querySelectorAll('#view li').length > n",
                arg=seen,
                timeout=STEP_MS,
            )
            seen = page.evaluate("() => document.querySelectorAll('#view li').length")
            assert page.is_visible("#out") and not page.is_visible("#decision")
        game.finish(120)
        page.wait_for_selector("#end table.results", timeout=STEP_MS)
        assert not page.is_visible("#out")  # the results panel replaces the notice
    finally:
        web.stop()


def test_drafts_checks_marks_and_labelled_confirmations(page: Any, tmp_path: Path) -> None:
    """Seed 10: seat 3 is a killer. Its options mark it and its partners; an empty
    answer is caught by the page; a speech and ticked boxes survive a reload; an
    accusation that is also a vouch is refused in words (KG-14) before any
    confirmation; the confirmation quotes the speech; its own speech reads "You"."""
    web = WebRun(announce=quiet)
    try:
        game = killer_seat3_game(web, tmp_path)
        page.goto(_seat_url(web, 3))
        first = wait_turn_or_end(page, None)
        card = page.text_content("#view section.card")
        # the card in plain words (issue 38): who the seat is, its partners by seat
        assert "You are a killer, seat 3. Your partners: seats " in card
        board = page.locator("#view section.board tbody tr")
        assert board.count() == 12  # the seat board: seat 3 and its two partners marked
        assert page.locator("#view section.board tr.partner").count() == 2
        assert "Seat 3 (you)" in page.text_content("#view section.board tr[data-seat='3']")
        options = page.locator("#decision label.option").all_text_contents()
        assert "Seat 3 (you)" in [o.strip() for o in options]
        partners = [o.strip() for o in options if "(partner)" in o]
        assert len(partners) == 2
        page.click("#send")  # nothing chosen: the page says so, nothing is sent
        assert page.text_content("#error") == "Please choose: target."
        assert not page.is_visible("#confirm")
        page.locator("#decision label.option", has_text=partners[0]).click()
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        assert page.text_content("#confirm-what") == f"Your kill opinion: {partners[0]}"
        page.click("#confirm-yes")
        request = play_until(page, "fieldset[data-field=accuse]", wait_turn_or_end(page, first))
        assert request is not None, "seat 3 never spoke"
        accuse = page.locator("fieldset[data-field=accuse] input").first
        seat = accuse.get_attribute("value")
        page.fill("fieldset[data-field=speech] textarea", "Seat 3 here: I trust nobody.")
        accuse.check()
        page.reload()  # the draft comes back: the words typed and the box ticked
        assert wait_turn_or_end(page, None) == request
        speech = page.locator("fieldset[data-field=speech] textarea")
        assert speech.input_value() == "Seat 3 here: I trust nobody."
        assert page.locator("fieldset[data-field=accuse] input").first.is_checked()
        page.locator(f"fieldset[data-field=vouch] input[value='{seat}']").check()
        page.click("#send")
        page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
        refusal = page.text_content("#error")
        assert "both accused and vouched for" in refusal and "(rule KG-14)" in refusal
        assert "Legal options" not in refusal and not page.is_visible("#confirm")
        shot(page, "seat-refused-in-words")
        page.locator(f"fieldset[data-field=vouch] input[value='{seat}']").uncheck()
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        assert page.text_content("#confirm-what") == (
            f"Your speech: “Seat 3 here: I trust nobody.” · Your accusations: Seat {seat}"
        )
        shot(page, "seat-confirm-labelled")
        # an edit while the confirmation shows takes it back: what it quoted is stale
        speech.press("End")
        speech.type(" Really.")
        assert not page.is_visible("#confirm") and page.is_visible("#send")
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        assert page.text_content("#confirm-what") == (
            f"Your speech: “Seat 3 here: I trust nobody. Really.” · Your accusations: Seat {seat}"
        )
        # a dropped connection: nothing is sent, the page says so, the person can send again
        page.context.set_offline(True)
        page.click("#confirm-yes")
        page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
        assert page.text_content("#error") == (
            "Not sent: the connection to the game was lost. Try again."
        )
        assert page.is_enabled("#send") and current_request(page) == request
        page.context.set_offline(False)
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        page.click("#confirm-yes")
        page.wait_for_function(
            "(id) => !document.querySelector('#decision') ||"
            " document.querySelector('#decision').dataset.request !== id",
            arg=request,
        )
        said = page.locator("#view li.speech", has_text="I trust nobody").first
        assert said.locator(".who").text_content().startswith("You say")
        # the draft goes with its answer: cleared when the page hears the answer was
        # accepted, which may come just after the next question (times out if never)
        gone = "(id) => Object.keys(localStorage).filter(k => k.endsWith(':' + id)).length === 0"
        page.wait_for_function(gone, arg=request)
        page.on("dialog", lambda dialog: dialog.accept())
        page.click("#leave")  # the rest of the game without the person
        game.finish(60)
    finally:
        web.stop()


def test_the_page_answers_before_any_pushed_state(page: Any, tmp_path: Path) -> None:
    """A WebSocket that never connects (a proxy that blocks it): the question the
    page came with still checks, confirms and sends, and the referee takes it."""
    web = WebRun(announce=quiet)
    try:
        game = killer_seat3_game(web, tmp_path)
        url = _seat_url(web, 3)
        seat = Client.of_url(url)
        asked = seat.wait_for(lambda s: s.get("request_id") is not None)["request_id"]
        page.route_web_socket("**/ws*", lambda socket: None)  # never reaches the server
        page.goto(url)
        assert current_request(page) == asked
        page.locator("#decision label.option").first.click()
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        page.click("#confirm-yes")
        page.wait_for_function("() => document.querySelector('#send').disabled")
        seat.wait_for(lambda s: s.get("request_id") != asked)  # the answer was taken
        assert page.text_content("#error") == ""
        page.unroute_all()
        page.on("dialog", lambda dialog: dialog.accept())
        seat.request("POST", "/api/leave", {})
        game.finish(60)
    finally:
        web.stop()
