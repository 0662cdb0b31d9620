"""The commands that go on from a saved game: ``replay`` (re-referee it and
compare), ``resume`` (finish it in its own file) and ``fork`` (branch it at an
event and play on with other agents)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from sandbox.cli.display import Display, consoles, live_seat, print_record
from sandbox.cli.errors import (
    bad_input_is_one_line,
    game_stops_cleanly,
    interrupted,
)
from sandbox.cli.options import AsSeatOption, check_seat, out_folder
from sandbox.cli.play import web_run
from sandbox.session import (
    fork,
    game_config_of,
    loaded_of,
    replay_transcript,
    resume,
)
from sandbox.session.gamefile import LoadedConfig, load_config
from sandbox.session.play import LiveHooks
from sandbox.transcript import Transcript, read_transcript

QuietOption = Annotated[bool, typer.Option(help="no live event stream")]


def replay(transcript: Annotated[Path, typer.Argument(help="a .jsonl transcript")]) -> None:
    """Re-referee a transcript from its seed, config and decisions; compare every event."""
    with bad_input_is_one_line():
        recorded = read_transcript(transcript)
        divergence = replay_transcript(recorded)
    if divergence is not None:
        print(f"DIVERGED at {divergence}")
        raise typer.Exit(1)
    if not recorded.finished:
        count = len(recorded.events)
        print(f"OK (unfinished: {count} events, no outcome): every recorded event is identical")
        return
    print("OK: every event is identical")


def resume_game(
    transcript: Annotated[Path, typer.Argument(help="an unfinished transcript")],
    quiet: QuietOption = False,
    as_seat: AsSeatOption = None,
) -> None:
    """Finish an interrupted game, appending to the same file."""
    console, err = consoles(False)
    with bad_input_is_one_line():
        recorded = read_transcript(transcript)
        loaded = loaded_of(recorded)
        display = _seat_display(loaded, recorded, as_seat, quiet, console, err)
        try:
            with _hosted(loaded, display.hooks("resumed")) as hooks:
                record = resume(transcript, hooks)
        except KeyboardInterrupt:
            display.stop()
            interrupted(transcript)
        print_record(console, record)


def fork_game(
    transcript: Annotated[Path, typer.Argument(help="the game to branch from")],
    at: Annotated[int, typer.Option(help="keep events [0, N); N must be a step boundary")],
    config: Annotated[
        Path | None,
        typer.Option(help="game file with the new agents (default: the transcript's own)"),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="folder of the new transcript")] = None,
    quiet: QuietOption = False,
    as_seat: AsSeatOption = None,
) -> None:
    """Branch a game at event N and continue with other agents."""
    console, err = consoles(False)
    with bad_input_is_one_line():
        other = load_config(config) if config is not None else None
        recorded = read_transcript(transcript)
        playing = other or loaded_of(recorded)
        folder = out_folder(out, playing)
        display = _seat_display(playing, recorded, as_seat, quiet, console, err)
        with game_stops_cleanly(display), _hosted(playing, display.hooks(f"fork at {at}")) as hooks:
            record = fork(transcript, at, other, folder, hooks)
        print_record(console, record)


@contextmanager
def _hosted(loaded: LoadedConfig, hooks: LiveHooks) -> Iterator[LiveHooks]:
    """``hooks`` with the web pages that serve the game's browser and remote
    seats, as ``sandbox run`` has them (none needed: the hooks as they are)."""
    web = web_run(loaded)
    if web is None:
        yield hooks
        return
    try:
        yield web.hooks(hooks)
    finally:
        web.stop()


def _seat_display(
    loaded: LoadedConfig,
    recorded: Transcript,
    as_seat: int | None,
    quiet: bool,
    console: Console,
    err: Console,
) -> Display:
    """The live display of a continued game, under the same rules as ``run``: the
    seat is range-checked and a human at the table never sees the referee's view."""
    variant, game_config = game_config_of(recorded)
    check_seat(as_seat, variant.rules.seat_count(game_config))
    live, seat = live_seat(loaded, as_seat, err)
    return Display(console, err, seat, live and not quiet)
