"""The ``run`` command: play a game file (one game, or a series), live in the
terminal or with web pages for people and spectators, and write its transcripts."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from sandbox.cli.display import Display, consoles, live_seat, print_record
from sandbox.cli.errors import (
    bad_input_is_one_line,
    fail,
    game_stops_cleanly,
)
from sandbox.cli.options import (
    AsSeatOption,
    ConfigArgument,
    JsonOption,
    OutOption,
    check_seat,
    out_folder,
)
from sandbox.session import GameRecord, play_series, random_seed
from sandbox.session.agent_specs import HumanSpec
from sandbox.session.gamefile import LoadedConfig, config_warnings, load_config


def run(
    config: ConfigArgument,
    seed: Annotated[
        int | None, typer.Option(min=0, help="seed >= 0 (default: config's, else random)")
    ] = None,
    out: OutOption = None,
    as_json: JsonOption = False,
    series: Annotated[int | None, typer.Option(min=1, help="consecutive games")] = None,
    quiet: Annotated[bool, typer.Option(help="no live event stream, a progress line")] = False,
    as_seat: AsSeatOption = None,
    host_panel: Annotated[
        bool, typer.Option(help="a host page: hand seats to people and back, spectator links")
    ] = False,
    host: Annotated[
        str, typer.Option(help="address the web pages listen on (not loopback: a warning)")
    ] = "127.0.0.1",
    watch: Annotated[
        list[str] | None, typer.Option(help="a spectator page of seat N or 'referee' (repeat)")
    ] = None,
    pace: Annotated[
        float, typer.Option(min=0, max=60, help="with --host-panel: seconds before each AI answer")
    ] = 0.0,
) -> None:
    """Play a game (or a series) and write its transcript."""
    with bad_input_is_one_line():
        loaded = load_config(config)
        check_seat(as_seat, loaded.variant.rules.seat_count(loaded.game_config))
        chosen = seed if seed is not None else loaded.file.seed
        seed_used = chosen if chosen is not None else random_seed()
        count = series or loaded.file.run.series
        console, err = consoles(as_json)
        for warning in config_warnings(loaded.file):
            err.print(f"warning: {escape(warning)}")
        if chosen is None:
            err.print(f"seed: {seed_used} (random)")
        live, seat = live_seat(loaded, as_seat, err)
        display = Display(console, err, seat, live and not (quiet or as_json), quiet)
        if _terminal_human(loaded):
            display.status = None  # no spinner over what the person types
        folder = out_folder(out, loaded)
        web = web_run(loaded, host_panel, host, watch or [], pace)
        if web is not None:
            display.narrowed = web.narrowed  # the host may play: see Display.narrowed
        try:
            records = _play(loaded, seed_used, count, folder, display, web)
            if web is not None:
                web.wait_for_end_screens()
        finally:
            if web is not None:
                web.stop()
        if _terminal_human(loaded) and not as_json:
            _stories(records, console)  # the person's story at the end (issue 38)
        _report(records, console, as_json, display.seconds)


def _terminal_human(loaded: LoadedConfig) -> bool:
    specs = [loaded.file.default_agent, *loaded.file.agent]
    return any(s.kind == "human" and s.interface == "terminal" for s in specs)


def web_run(
    loaded: LoadedConfig,
    host_panel: bool = False,
    host: str = "127.0.0.1",
    watch: list[str] | None = None,
    pace: float = 0.0,
) -> Any:
    """The run's web pages (seats, host panel, spectators), when it has any: the
    host that seats its browser and remote seats (handed over in its hooks)."""
    watch = watch or []
    specs = [loaded.file.default_agent, *loaded.file.agent]
    browser = any(isinstance(s, HumanSpec) and s.interface == "browser" for s in specs)
    remote = any(s.kind == "remote" for s in specs)  # its endpoint is on the run's server
    if not (host_panel or watch or browser or remote):
        return None
    seats = loaded.variant.rules.seat_count(loaded.game_config)
    for target in watch:
        if target != "referee" and not (target.isdigit() and 1 <= int(target) <= seats):
            fail(f"--watch {target}: give a seat number 1..{seats} or 'referee'")
    web = importlib.import_module("sandbox.web.run")  # uvicorn only when needed
    humans = any(s.kind == "human" for s in specs)
    if "referee" in watch and humans:
        print("note: --watch referee shows only what every player is told while a "
              "person plays (fair play); the whole game once it ends", file=sys.stderr)  # fmt: skip
    run = web.WebRun(host=host, host_panel=host_panel, watch=watch, pace_s=pace)
    if host_panel:
        run.panel()
    return run


def _play(
    loaded: LoadedConfig, seed: int, count: int, out: Path, display: Display, web: Any = None
) -> list[GameRecord]:
    label = f"{loaded.variant.name} seed {seed}"
    hooks = display.hooks(label) if web is None else web.hooks(display.hooks(label))
    try:
        with game_stops_cleanly(display):
            records = play_series(
                loaded,
                seed,
                count,
                out,
                hooks=hooks,
                on_game_done=display.game_done,
            )
    finally:
        display.stop()
    return records


def _stories(records: list[GameRecord], console: Console) -> None:
    """Each finished game's recap, for the person who played it in the terminal."""
    from sandbox.transcript import read_transcript  # only when a person played here
    from sandbox.viewer.story import build_story
    from sandbox.viewer.terminal import print_story

    for record in records:
        if record.path is not None:
            story = build_story(read_transcript(record.path))
            if story is not None:
                print_story(console, story)


def _report(
    records: list[GameRecord], console: Console, as_json: bool, seconds: dict[Path, float]
) -> None:
    if as_json:
        games = [r.to_json() for r in records]
        obj: dict[str, Any] = games[0] if len(games) == 1 else {"games": games}
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    for record in records:
        took = seconds.get(record.path) if record.path is not None else None
        print_record(console, record, took)
