"""The lobby (issue 38 item 2): one web server holding many tables.

``sandbox serve`` starts it (sandbox/cli/serve.py). Its own link (a token, as
every page has) lists the open tables and lets anyone holding it create a
table from one of the served game files, or pick a free seat at one. Each
table is a run's pages on this one server (web/lobby_table.py): a token per
seat page and one for its host, the seat pages, their guards and fair play as
in ``sandbox run``. What a page may ask of the lobby is in web/lobby_routes.py,
its pages in web/lobby_pages.py (templates under web/assets/templates/lobby*.html).
See docs/lobby.md.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sandbox.core.errors import ConfigError
from sandbox.session.gamefile import LoadedConfig
from sandbox.web.audience import Audience
from sandbox.web.board import Board
from sandbox.web.guard import LOOPBACK
from sandbox.web.hub import WebHub, print_to_stderr
from sandbox.web.lobby_routes import lobby_app
from sandbox.web.lobby_table import (
    CLOSED,
    Table,
    TableError,
    TableSettings,
    describe,
    settings_of,
    table_config,
)

DEFAULT_MAX_TABLES = 50


class Lobby:
    """The lobby's server, its tables and the game files they may be made from."""

    def __init__(
        self,
        games: Mapping[str, LoadedConfig],
        *,
        host: str = LOOPBACK,
        port: int = 0,
        out: Path = Path("transcripts"),
        pace_s: float = 1.5,
        max_tables: int = DEFAULT_MAX_TABLES,
        seed: int | None = None,
        public_url: str | None = None,
        announce: Any = print_to_stderr,
    ) -> None:
        if not games:
            raise ConfigError("the lobby has no game file to make tables from")
        self.games = dict(games)
        self.out, self.pace_s, self.max_tables = out, pace_s, max_tables
        self.seed = seed
        self.public_url = public_url.rstrip("/") if public_url else None
        self.announce = announce
        self.tables: dict[int, Table] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self.board = Board(tables=[])  # the listing, poked at every change: a page may follow it
        self.hub = WebHub(host, port, serve=lambda hub: lobby_app(hub, self))
        self.page = self.hub.add(Audience("lobby", self.board, "Lobby"))
        if host not in (LOOPBACK, "localhost"):
            announce(
                f"warning: the lobby listens on {host}:{self.hub.port}, reachable from "
                "other machines; anyone with its link can create tables and take seats"
            )

    # ------------------------------------------------------------ links
    def link(self, path: str, token: str) -> str:
        """The address of ``path`` with ``token``, as people reach it (behind a
        reverse proxy: its public address, ``--public-url``)."""
        base = self.public_url or f"http://{self.hub.shown_host}:{self.hub.port}"
        return f"{base}{path}?t={token}"

    @property
    def url(self) -> str:
        return self.link("/lobby", self.page.token)

    # ------------------------------------------------------------ tables
    def create(self, settings: TableSettings) -> Table:
        """A new table, its first game set up and waiting for its people."""
        loaded = self.games.get(settings.game)
        if loaded is None:
            raise TableError(f"game: {settings.game!r} is not served here; "
                             f"games: {', '.join(sorted(self.games))}", 400)  # fmt: skip
        try:
            config = table_config(loaded, settings, self.pace_s)
        except ConfigError as err:
            raise TableError(str(err), 400) from None
        with self._lock:
            if len(self.open_tables()) >= self.max_tables:
                raise TableError(f"the lobby is full ({self.max_tables} tables); "
                                 "close a table first", 503)  # fmt: skip
            number = next(self._numbers)
            table = Table(
                number, config, settings, self.hub, self.out / "lobby",
                seed=None if self.seed is None else self.seed + 1000 * number,
                on_change=self.changed,
            )  # fmt: skip
            self.tables[number] = table
        self.announce(f"table {number}: {settings.game}, seats {table.seats}, "
                      f"open {', '.join(map(str, sorted(table.seat_pages)))}")  # fmt: skip
        self.changed()
        return table

    def open_tables(self) -> list[Table]:
        return [t for t in self.tables.values() if t.status() != CLOSED]

    def table(self, number: int) -> Table:
        table = self.tables.get(number)
        if table is None or table.closed:
            raise TableError(f"no open table {number}", 404)
        return table

    def listing(self) -> list[dict[str, Any]]:
        """Every open table as the lobby lists it (no token)."""
        return [describe(t, t.free_seats()) for t in self.open_tables()]

    def host_of(self, page: Audience) -> Table | None:
        """The table whose host page ``page`` is."""
        return next((t for t in self.open_tables() if t.host_page is page), None)

    def seat_of(self, page: Audience) -> tuple[Table, int] | None:
        """The table and seat of a person's seat page ``page``."""
        for table in self.open_tables():
            seat = table.seat_of(page)
            if seat is not None:
                return table, seat
        return None

    def close(self, table: Table) -> None:
        table.close()
        self.announce(f"table {table.number}: closed")

    def changed(self) -> None:
        self.board.update(tables=self.listing())

    def stop(self) -> None:
        """Close every table, then stop the server."""
        for table in list(self.open_tables()):
            table.close(wait_s=2.0)
        self.hub.stop()


__all__ = ["Lobby", "Table", "TableError", "TableSettings", "settings_of"]
