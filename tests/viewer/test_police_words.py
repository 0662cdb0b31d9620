"""In seeded Killer games no police check reads "no opinion" in any view unless
the police seat gave none (issue 20): the referee's and the seat's terminal
(``sandbox view``), the seat's own history as its terminal and its web page show
it, and the HTML pages (the referee's and the seat's).

Random seats skip the check now and then (KG-4 allows no opinion), baseline bots
are the seats a person plays with; both kinds are played.
"""

from __future__ import annotations

import asyncio
import html
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.agents.human.terminal import history_line
from sandbox.cli.main import app
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.games.killer.info import Decision
from sandbox.games.registry import get_variant
from sandbox.session.replay import game_config_of, rebuild
from sandbox.transcript import Transcript
from sandbox.viewer.site import game_page
from sandbox.web.pages import history_sections
from tests.viewer.games import played_transcript

GAMES = (("random", 1), ("random", 2), ("random", 3), ("baseline", 1), ("baseline", 2))
NO_OPINION = "no opinion"
ENTRY = re.compile(r'<div class="entry[^"]*" id="e(\d+)"')
TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Check:
    """One police seat's answer to the check (KG-4), at event ``seq``."""

    seq: int
    seat: int
    suspect: int | None

    def reads_right(self, text: str) -> bool:
        """Whether ``text`` (the line or entry of this answer) says it as given."""
        if self.suspect is None:
            return NO_OPINION in text
        return NO_OPINION not in text and f"seat {self.suspect} checked" in text


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Transcript]:
    folder = tmp_path_factory.mktemp("police")
    return [played_transcript(folder, "killer", seed, kind) for kind, seed in GAMES]


def checks(transcript: Transcript) -> list[Check]:
    return [
        Check(seq, e.seat, (e.payload or {}).get("suspect"))  # a fallback gives none
        for seq, e in enumerate(transcript.events)
        if isinstance(e, DecisionMade) and e.decision == Decision.SUSPECT
    ]


def police_seats(transcript: Transcript) -> list[int]:
    return sorted({c.seat for c in checks(transcript)})


def view_lines(path: Path, *seat: str) -> dict[int, str]:
    """``sandbox view`` in the terminal: event number -> its line."""
    result = CliRunner().invoke(app, ["view", str(path), *seat], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.stderr
    found = (re.match(r"#(\d+) (.*)", line) for line in result.stdout.splitlines())
    return {int(m[1]): m[2] for m in found if m}


def page_entries(page: str) -> dict[int, str]:
    """An HTML page's entries: event number -> the entry's text."""
    starts = list(ENTRY.finditer(page))
    ends = [m.start() for m in starts[1:]] + [len(page)]
    return {
        int(m[1]): html.unescape(TAG.sub(" ", page[m.start() : end]))
        for m, end in zip(starts, ends, strict=True)
    }


def rebuilt(transcript: Transcript) -> Game:
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    done = asyncio.run(rebuild(variant, config, seed, transcript.events))
    assert done.divergence is None, done.divergence
    return done.game


def test_the_games_have_checks_with_and_without_an_opinion(games: list[Transcript]) -> None:
    found = [c for t in games for c in checks(t)]
    assert any(c.suspect is None for c in found) and any(c.suspect is not None for c in found)


def test_the_terminal_says_each_check_as_given(games: list[Transcript]) -> None:
    for transcript in games:
        referee = view_lines(transcript.path)
        seats = {s: view_lines(transcript.path, "--seat", str(s)) for s in police_seats(transcript)}
        for check in checks(transcript):
            assert check.reads_right(referee[check.seq]), referee[check.seq]
            own = seats[check.seat][check.seq]
            assert check.reads_right(own) and "You " in own, own


def test_the_seats_own_history_says_each_check_as_given(games: list[Transcript]) -> None:
    for transcript in games:
        game = rebuilt(transcript)
        for seat in police_seats(transcript):
            view = game.view(seat)
            terminal = {i.seq: history_line(i, get_variant("killer"), seat) for i in view.history}
            page = {e.seq: e.text for s in history_sections(view, "en") for e in s.entries}
            for check in (c for c in checks(transcript) if c.seat == seat):
                assert check.reads_right(terminal[check.seq]), terminal[check.seq]
                assert check.reads_right(page[check.seq]), page[check.seq]


def test_the_html_pages_say_each_check_as_given(games: list[Transcript]) -> None:
    for transcript in games:
        referee = page_entries(game_page(transcript, None, None, None))
        for seat in police_seats(transcript):
            own = page_entries(game_page(transcript, seat, None, None))
            for check in (c for c in checks(transcript) if c.seat == seat):
                assert check.reads_right(referee[check.seq]), referee[check.seq]
                assert check.reads_right(own[check.seq]), own[check.seq]
