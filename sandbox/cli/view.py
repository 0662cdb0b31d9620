"""The ``view`` command: a saved game in the terminal (as the referee or one seat,
filtered by day, text or model calls) or as an HTML page, or a folder of games
as a table or a small site with an index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.cli.errors import bad_input_is_one_line, fail
from sandbox.cli.options import check_seat
from sandbox.cli.stats import plural
from sandbox.transcript import TranscriptError, read_transcript
from sandbox.transcript.files import transcript_files
from sandbox.viewer.site import game_page, game_row, write_site
from sandbox.viewer.terminal import Filters, print_timeline
from sandbox.viewer.timeline import build_timeline, seat_numbers
from sandbox.words import LANGUAGES


def view(
    transcript: Annotated[Path, typer.Argument(help="a .jsonl transcript, or a folder of them")],
    seat: Annotated[int | None, typer.Option(help="only what seat N may see")] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            help="write the interactive page to this file, or into this existing folder "
            "(for a folder of games: a folder with an index)"
        ),
    ] = None,
    day: Annotated[int | None, typer.Option(help="only the lines of day N")] = None,
    grep: Annotated[str | None, typer.Option(help="only the lines containing this text")] = None,
    calls: Annotated[bool, typer.Option(help="print each model call in full (referee)")] = False,
    language: Annotated[
        str | None, typer.Option(help="en or zh (default: the game's prompt language)")
    ] = None,
) -> None:
    """Show a saved game (as the referee or as one seat), or index a folder of games."""
    with bad_input_is_one_line():
        if language is not None and language not in LANGUAGES:
            fail(f"--language {language!r}: choose one of {', '.join(LANGUAGES)}")
        if transcript.is_dir():
            _view_folder(transcript, html, language, seat, day, grep, calls)
            return
        loaded = read_transcript(transcript)
        check_seat(seat, len(seat_numbers(loaded)))
        if calls and seat is not None:
            fail("--calls shows the referee's model calls; it cannot be combined with --seat")
        if html is not None:
            if day is not None or grep is not None or calls:
                fail("--day, --grep and --calls filter the terminal view; the page has its own")
            # an existing folder gets the page named after the game's transcript
            page = html / f"{transcript.stem}.html" if html.is_dir() else html
            page.write_text(game_page(loaded, seat, language, str(transcript)), encoding="utf-8")
            print(f"wrote {page}")
            return
        timeline = build_timeline(loaded, seat, language)
        print_timeline(Console(highlight=False), timeline, Filters(day, grep, calls))


def _view_folder(
    folder: Path,
    html: Path | None,
    language: str | None,
    seat: int | None,
    day: int | None,
    grep: str | None,
    calls: bool,
) -> None:
    """A folder: its index page and one page per game, or a table of its games."""
    if seat is not None or day is not None or grep is not None or calls:
        fail(
            f"{folder}: a folder is indexed as a whole; --seat, --day, --grep and --calls "
            "take one transcript"
        )
    if html is None:
        _print_games(folder)
        return
    if html.exists() and not html.is_dir():
        fail(f"{html}: for a folder of games --html names a folder (it gets index.html)")
    count, skipped = write_site(folder, html, language)
    if count == 0:
        fail(f"{folder}: is a directory with no readable transcript (.jsonl) in it")
    note = f", {plural(len(skipped), 'file')} skipped" if skipped else ""
    print(f"wrote {html / 'index.html'} ({plural(count, 'game')}{note})")


def _print_games(folder: Path) -> None:
    rows = []
    for path in transcript_files([folder]):
        try:
            loaded = read_transcript(path)
        except TranscriptError:
            continue
        rows.append(game_row(loaded, str(path.relative_to(folder)), ""))
    if not rows:
        fail(f"{folder}: is a directory with no readable transcript (.jsonl) in it")
    table = Table("game", "variant", "seed", "players / models", "outcome", "events", "cost ($)")
    for row in rows:
        cells = (row.name, row.variant, row.seed, row.players, row.outcome, str(row.events))
        table.add_row(*(escape(c) for c in cells), row.cost)
    Console(highlight=False).print(table)
