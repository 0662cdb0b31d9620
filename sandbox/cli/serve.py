"""The ``serve`` command: a lobby on one web server (issue 38 item 2) where
hosts create tables from the served game files and people pick their seats
(docs/lobby.md). It runs until Ctrl-C, which closes every table."""

from __future__ import annotations

import importlib
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from sandbox.cli.errors import bad_input_is_one_line, fail
from sandbox.core.errors import ConfigError
from sandbox.session.gamefile import LoadedConfig, load_config

DEFAULT_GAMES = Path("configs")


def serve(
    games: Annotated[
        list[Path] | None,
        typer.Argument(help="game files or folders of them (default: ./configs)"),
    ] = None,
    host: Annotated[
        str, typer.Option(help="address to listen on (not loopback: a warning)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="port (0: a free one)")] = 0,
    out: Annotated[Path, typer.Option(help="transcript folder (tables write under lobby/)")] = Path(
        "transcripts"
    ),
    pace: Annotated[
        float, typer.Option(min=0, max=60, help="seconds a person's page waits after each event")
    ] = 1.5,
    max_tables: Annotated[int, typer.Option(min=1, max=1000, help="open tables at most")] = 50,
    public_url: Annotated[
        str | None,
        typer.Option(help="the address people reach behind a reverse proxy (shown in links)"),
    ] = None,
) -> None:
    """A lobby: create tables from game files, pick seats, rematch, rejoin."""
    with bad_input_is_one_line():
        served = load_games(games or [DEFAULT_GAMES])
        lobby_module = importlib.import_module("sandbox.web.lobby")  # uvicorn only here
        lobby = lobby_module.Lobby(
            served, host=host, port=port, out=out, pace_s=pace, max_tables=max_tables,
            public_url=public_url,
        )  # fmt: skip
    print(f"lobby: {lobby.url}", file=sys.stderr, flush=True)
    files = f"{len(served)} game file" + ("s" if len(served) != 1 else "")
    print(f"{files}; Ctrl-C closes the lobby", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("closing the lobby…", file=sys.stderr, flush=True)
    finally:
        lobby.stop()


def load_games(paths: list[Path]) -> dict[str, LoadedConfig]:
    """Each game file (a folder: its ``*.toml``) by its name without ``.toml``;
    one that does not load is left out with a warning (a folder of configs
    holds scenario files too), a file named on its own must load."""
    found: dict[str, LoadedConfig] = {}
    for path in paths:
        if path.is_dir():
            for file in sorted(path.glob("*.toml")):
                try:
                    found.setdefault(file.stem, load_config(file))
                except ConfigError as err:
                    print(f"warning: left out: {err}", file=sys.stderr)
        elif path.exists():
            found.setdefault(path.stem, load_config(path))
        else:
            raise ConfigError(f"{path}: no such file or folder")
    if not found:
        fail("no game file to serve: name game files or a folder of them")
    return found
