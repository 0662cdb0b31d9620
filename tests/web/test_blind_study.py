"""A person in a blind study, in a real browser (issue 39, item 4): Debian's
chromium driven by Playwright. A pseudonymous person (``p-7f3a``) and a bot
play a two-game round-robin study of the 4-seat Mini-Mafia table (the person
is the werewolf in one game, the whole village — three seats, three pages — in
the other); the person answers every question of the game on the pages, and
at the end of each game every page of theirs asks "which seats were played by
AI?"; the answers reach the outcome lines, the person the ratings, and the
answers the detectability table. The pages never name the bot's contestant
(blind)."""

from __future__ import annotations

import queue
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.study.people import PeopleBackend
from sandbox.study.run import plan_run, planned_games, run_study
from sandbox.study.spec import load_study
from sandbox.transcript import read_game
from sandbox.web.end_question import END_REQUEST
from tests.chromium import CHROMIUM, require_chromium
from tests.chromium import CHROMIUM_ARGS as ARGS
from tests.web.test_browser import current_request, fill_and_send

STEP_MS = 60_000  # a bound that makes a stuck test fail, never a timing assertion
PERSON, BOT = "p-7f3a", "zeta-model"

playwright_api = pytest.importorskip("playwright.sync_api")
require_chromium()

# Mini-Mafia's own table (WW-1 small_table, WW-5 first_night): the preset itself
PRESET = Path(__file__).resolve().parents[2] / "configs" / "minimafia.toml"

STUDY = f"""name = "blind"
game = "{PRESET}"
schedule = "round_robin"
seed = 4
blind = true
out = "out"

[[contestant]]
kind = "person"
id = "{PERSON}"
decision_timeout_s = 60
pace_s = 0

[[contestant]]
name = "{BOT}"
kind = "baseline"
"""


@pytest.fixture
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def play_pages(pages: list[Any]) -> None:
    """Answer every game question on the person's pages like a person (a
    speech, the first seat offered) until each page asks the end question."""
    answered: dict[int, str] = {}
    deadline = time.monotonic() + 4 * STEP_MS / 1000
    while time.monotonic() < deadline:
        asking = 0
        for i, page in enumerate(pages):
            request = current_request(page)
            if request == END_REQUEST:
                asking += 1
            elif request and answered.get(i) != request:
                answered[i] = request
                fill_and_send(page, "I am with the village; seat 2 worries me.")
        if asking == len(pages):
            assert answered, "the person answered no question of the game"
            return
        time.sleep(0.1)
    raise AssertionError("the end question never came")


def answer_the_end_question(browser: Any, urls: list[str], name: list[int]) -> list[str]:
    """Open every seat page of the person's, play the game through them, then
    on each: tick ``name`` (the seats offered among them), Send and Confirm;
    the pages' text at the end."""
    context = browser.new_context()
    context.set_default_timeout(STEP_MS)
    pages = [context.new_page() for _ in urls]
    for page, url in zip(pages, urls, strict=True):
        page.goto(url)
    play_pages(pages)
    texts = []
    for page in pages:
        assert "which seats were played by AI?" in page.inner_text("#decision")
        for box in page.query_selector_all("#decision input[type=checkbox]"):
            if int(box.get_attribute("value")) in name:
                box.check()
        page.click("#send")
        page.wait_for_selector("#confirm:not([hidden])")
        page.click("#confirm-yes")
        page.wait_for_function("() => document.body.classList.contains('ended')")
        texts.append(page.inner_text("body"))
    context.close()
    return texts


def test_a_blind_person_is_asked_rated_and_counted(tmp_path: Path, browser: Any) -> None:
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    study = load_study(tmp_path / "study.toml")
    assert study.people == [PERSON]
    lines: queue.Queue[str] = queue.Queue()
    backend = PeopleBackend(True, announce=lines.put, wait_s=STEP_MS / 1000)
    outcome: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: outcome.update(
            result=run_study(study, plan_run(study), lambda r: None, backend)
        ),
        daemon=True,
    )
    thread.start()
    texts = []
    for game in planned_games(study):  # played in this order, one at a time
        mine = sorted(s for s, who in game.seats.items() if who == PERSON)
        bots = sorted(s for s, who in game.seats.items() if who == BOT)
        urls = []
        while len(urls) < len(mine):  # each of the person's seats announces its page
            found = re.search(r"seat \d+: open (\S+)", lines.get(timeout=STEP_MS / 1000))
            if found:
                urls.append(found.group(1))
        # the werewolf (one seat) names two of the three village seats; the village
        # (three seats, one person) names the werewolf's seat on each page
        name = [s for s in range(1, 5) if s not in mine][:2] if len(mine) == 1 else bots
        texts += answer_the_end_question(browser, urls, name)
    thread.join(timeout=STEP_MS / 1000)
    assert not thread.is_alive()
    result = outcome["result"]
    assert len(result.finished) == 2 and not result.failed
    assert all(BOT not in text for text in texts)  # blind: no contestant's name on the page
    games = [read_game(p) for p in sorted((tmp_path / "out").glob("*.jsonl"))]
    assert len(games) == 2
    for game in games:
        assert game.study["people"] == [PERSON] and game.study["blind"] is True
        seats = [s for s, who in game.contestants.items() if who == PERSON]
        assert all(game.agents[s]["kind"] == "human" for s in seats)
        answers = (game.outcome or {})["end_answers"]
        theirs = [e for e in game.of_kind("core.decision") if e["seat"] in seats]
        assert theirs and not any(e["fallback"] for e in theirs)  # answered on the pages
        assert sorted(int(s) for s in answers) == seats  # referee-only: the outcome line
    summary = summarise_games(load_games([tmp_path / "out"]), samples=20)
    assert PERSON in summary["ratings"] and summary["ratings"][PERSON]["elo_ci95"] is not None
    found = summary["detectability"]
    # game 1: 2 of the 3 bot seats named; game 2: each of the 3 pages names the one
    # bot seat of 1 (its two other seats the person's own: none named as AI)
    assert (found["overall"]["named"], found["overall"]["of"]) == (5, 6)
    assert found["overall"]["false_alarms"]["of"] == 6
    assert found["overall"]["false_alarms"]["named"] == 0
    assert found["overall"]["chance"] == 0.5  # (3·2/3 + 3·(1·1/3)) / 6
    assert found["by_person"][PERSON]["answers"] == 4
    assert found["by_model"][BOT]["of"] == 6
