"""The HTML viewer in a real browser (Debian's chromium through Playwright).

Switching the audience to a seat never shows what that seat may not know
(checked with the no-leak audit's facts at several points of the game),
stepping, jumping and the filters work, and a ``<script>`` speech stays text.
Screenshots go to ``tests/viewer/screenshots/`` (not committed).

Skipped only when /usr/bin/chromium is missing outside CI; under CI=true a
missing browser fails the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.games.registry import get_variant
from sandbox.transcript import Transcript, read_transcript
from sandbox.viewer.site import game_page, write_site
from sandbox.viewer.timeline import build_timeline
from tests.chromium import CHROMIUM, require_chromium
from tests.chromium import CHROMIUM_ARGS as ARGS
from tests.prompts.audit import find_leaks, forbidden
from tests.viewer.games import cut, played_transcript, with_speech

SHOTS = Path(__file__).parent / "screenshots"

require_chromium()

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Transcript]:
    """Played before the browser starts (Playwright's sync API holds an event loop)."""
    folder = tmp_path_factory.mktemp("games")
    return {
        "killer": played_transcript(folder, "killer", seed=4),
        "four_factions": played_transcript(folder, "four_factions", seed=4),
        "killer2": played_transcript(folder, "killer", seed=2),
        "killer3": played_transcript(folder, "killer", seed=3),
    }


@pytest.fixture(scope="module")
def browser(games: dict[str, Transcript]) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.route("**/*", _only_local)  # the page must not reach the network
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    yield tab
    context.close()
    assert errors == [], errors


def _only_local(route: Any) -> None:
    if route.request.url.startswith("file://"):
        route.continue_()
    else:
        pytest.fail(f"the page fetched {route.request.url}")


def open_page(page: Any, transcript: Transcript, path: Path, seat: int | None = None) -> None:
    path.write_text(game_page(transcript, seat, "en", str(transcript.path)), "utf-8")
    page.goto(path.as_uri())
    page.wait_for_selector("#story .entry")


def shown_text(page: Any) -> str:
    """What the reader sees: the document's rendered text (templates are inert)."""
    return str(page.evaluate("document.body.innerText"))


def position(page: Any) -> int:
    """The event number of the current line."""
    return int(page.eval_on_selector(".entry.current", "e => e.dataset.seq"))


def jump_to(page: Any, seq: int) -> None:
    page.fill("#jump", str(seq))
    page.press("#jump", "Enter")


def rebuilt(transcript: Transcript) -> Game:
    variant = get_variant(str(transcript.header["variant"]))
    config = variant.parse_config(transcript.header["game_config"])
    return Game.from_events(variant, config, int(transcript.header["seed"]), transcript.events)


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_a_seat_audience_shows_nothing_the_seat_may_not_know(
    page: Any, games: dict[str, Transcript], tmp_path: Path, variant: str
) -> None:
    transcript = games[variant]
    game = rebuilt(transcript)
    open_page(page, transcript, tmp_path / "game.html")
    referee = shown_text(page)
    for seat in (1, 6):
        page.select_option("#audience", str(seat))
        seqs = [
            int(s) for s in page.eval_on_selector_all(".entry", "es => es.map(e => e.dataset.seq)")
        ]
        visible = {i for i, _ in game.visible_events(seat)}
        assert seqs and set(seqs) <= visible, "a line the seat did not see"
        for point in (len(seqs) // 3, 2 * len(seqs) // 3, len(seqs) - 2):
            jump_to(page, seqs[point])
            assert position(page) == seqs[point]
            facts, duels = forbidden(game, seat, seqs[point] + 1)
            assert facts, "nothing hidden from this seat: the check would be empty"
            leaks = find_leaks(shown_text(page), seat, facts, duels)
            assert leaks == [], leaks[:3]
        text = shown_text(page)
        assert "fake/" not in text and "baseline bot" not in text.split("Outcome")[0]
        page.screenshot(path=str(_shot(f"{variant}-seat{seat}.png")))
    # the referee audience does show the hidden facts (the audit would catch them)
    page.select_option("#audience", "referee")
    hidden, _ = forbidden(game, 1, len(game.events))
    assert find_leaks(shown_text(page), 1, hidden, set()), "the audit found nothing to hide"
    assert shown_text(page) == referee


def test_stepping_jumping_and_filters(
    page: Any, games: dict[str, Transcript], tmp_path: Path
) -> None:
    transcript = games["killer2"]
    open_page(page, transcript, tmp_path / "game.html")
    total = page.locator(".entry").count()
    page.keyboard.press("End")
    assert page.locator(".entry:visible").count() == total
    assert page.locator("#outcome").is_visible()
    page.keyboard.press("Home")
    assert page.locator(".entry:visible").count() == 1
    assert not page.locator("#outcome").is_visible()
    page.keyboard.press("ArrowRight")
    page.click("#next")
    assert page.locator(".entry:visible").count() == 3
    page.click("#prev")
    assert page.locator(".entry:visible").count() == 2
    # jump to an event number: the last line at or before it becomes current
    dawn = int(page.eval_on_selector('.entry[data-kind="killer.dawn"]', "e => e.dataset.seq"))
    jump_to(page, dawn)
    assert position(page) == dawn
    page.screenshot(path=str(_shot("killer-stepped.png")))
    page.click("#last")
    # filters: one seat, one day, one kind, no decisions, search
    page.select_option("#f-seat", "3")
    for seats in page.eval_on_selector_all(".entry:visible", "es => es.map(e => e.dataset.seats)"):
        assert "3" in seats.split()
    page.select_option("#f-seat", "")
    page.select_option("#f-day", "1")
    days = page.eval_on_selector_all(".entry:visible", "es => es.map(e => e.dataset.day)")
    assert days and set(days) == {"1"}
    page.select_option("#f-day", "")
    page.select_option("#f-kind", "killer.ballots")
    assert page.locator(".entry:visible").count() == sum(
        e.kind == "killer.ballots" for e in transcript.events
    )
    page.select_option("#f-kind", "")
    page.uncheck('.f-cat[value="decision"]')
    assert page.locator(".entry.cat-decision:visible").count() == 0
    page.check('.f-cat[value="decision"]')
    page.fill("#search", "votes for seat")
    hits = page.locator(".entry:visible")
    assert hits.count() > 0
    assert all("votes for seat" in t for t in hits.all_inner_texts())
    page.fill("#search", "")
    page.select_option("#f-seat", "3")
    page.screenshot(path=str(_shot("killer-filtered.png")))


def test_model_panels_board_and_fork_command(page: Any, tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "docs" / "sample" / "killer-sample.jsonl"
    transcript = read_transcript(sample)
    open_page(page, transcript, tmp_path / "game.html")
    panel = page.locator("details.mcall").first
    panel.locator("summary").first.click()
    text = panel.inner_text()
    assert "tokens in → out" in text and "latency" in text and "prompt messages" in text
    assert page.locator(".probe").count() > 0  # the belief probe is shown to the referee
    dead = page.eval_on_selector_all("#board tr.dead", "rs => rs.map(r => r.dataset.seat)")
    assert dead  # seats killed or voted out are marked on the board
    page.locator("button.fork").nth(3).click()
    status = page.inner_text("#status")
    assert status.startswith(f"sandbox fork {sample} --at ")
    page.screenshot(path=str(_shot("killer-referee.png")), full_page=False)
    page.select_option("#audience", "3")
    assert page.locator("details.mcall").count() == 0 and page.locator(".probe").count() == 0
    assert page.locator("#card .card").count() == 1  # the seat's own card


@pytest.mark.parametrize(("game", "hp"), [("four_factions", True), ("killer", False)])
def test_the_board_has_an_hp_column_when_the_events_set_hit_points(
    page: Any, games: dict[str, Transcript], tmp_path: Path, game: str, hp: bool
) -> None:
    """The page asks its own data, not the variant's name, whether HP is shown."""
    transcript = games[game]
    sets_hp = any(e.effects.get("hp") for e in build_timeline(transcript, None, "en").entries)
    assert sets_hp == hp
    open_page(page, transcript, tmp_path / "board.html")
    headers = page.eval_on_selector_all("aside thead th", "hs => hs.map(h => h.textContent)")
    assert ("HP" in headers) == hp
    cells = page.eval_on_selector_all("#board tr", "rs => rs.map(r => r.cells.length)")
    assert cells and set(cells) == {len(headers)}  # every row fills the header's columns
    if hp:
        column = headers.index("HP")
        shown = page.eval_on_selector_all(
            "#board tr", f"rs => rs.map(r => r.cells[{column}].textContent)"
        )
        assert all(value.isdigit() for value in shown)  # every seat's HP at the game's end


def test_a_script_speech_stays_text(
    page: Any, games: dict[str, Transcript], tmp_path: Path
) -> None:
    evil = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">'
    transcript = with_speech(tmp_path, games["killer3"], evil, "e.jsonl")
    open_page(page, transcript, tmp_path / "evil.html")
    assert page.title() != "pwned" and page.title() != "1"
    assert page.locator("#story script, #story img").count() == 0
    assert evil in shown_text(page)
    page.select_option("#audience", "2")
    assert evil in shown_text(page) and page.locator("#story script").count() == 0


def test_a_seat_only_file_holds_only_that_seat(
    page: Any, games: dict[str, Transcript], tmp_path: Path
) -> None:
    full = games["four_factions"]
    transcript = cut(tmp_path, full, 400, "cut.jsonl")  # unfinished: no roles revealed yet
    path = tmp_path / "seat5.html"
    open_page(page, transcript, path, seat=5)
    options = page.eval_on_selector_all("#audience option", "os => os.map(o => o.value)")
    assert options == ["5"]
    game = rebuilt(transcript)
    facts, duels = forbidden(game, 5, len(game.events))
    assert facts and duels
    assert find_leaks(path.read_text("utf-8"), 5, facts, duels) == []  # the whole file
    assert page.locator("#card table.duels").count() <= 1
    page.screenshot(path=str(_shot("four-factions-seat5-file.png")))


def _shot(name: str) -> Path:
    SHOTS.mkdir(exist_ok=True)
    return SHOTS / name


def test_the_folder_index_sorts_and_filters(
    page: Any, games: dict[str, Transcript], tmp_path: Path
) -> None:
    folder = games["killer"].path.parent
    count, skipped = write_site(folder, tmp_path / "site", "en")
    assert count == len(games) and skipped == []
    page.goto((tmp_path / "site" / "index.html").as_uri())
    assert page.locator("#games tbody tr").count() == count
    page.click("#games th:nth-child(3)")  # seed, ascending
    seeds = page.eval_on_selector_all(
        "#games tbody tr td:nth-child(3)", "ts => ts.map(t => +t.textContent)"
    )
    assert seeds == sorted(seeds)
    page.click("#games th:nth-child(3)")  # descending
    seeds = page.eval_on_selector_all(
        "#games tbody tr td:nth-child(3)", "ts => ts.map(t => +t.textContent)"
    )
    assert seeds == sorted(seeds, reverse=True)
    page.select_option("#variant", "four_factions")
    assert page.locator("#games tbody tr:visible").count() == 1
    page.select_option("#variant", "")
    page.fill("#filter", "s2-")
    assert page.locator("#games tbody tr:visible").count() == 1
    page.screenshot(path=str(_shot("index.png")))
    page.fill("#filter", "")
    page.click("#games tbody tr:first-child a")
    page.wait_for_selector("#story .entry")
