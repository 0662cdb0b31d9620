"""The lobby's pages (issue 38 item 2): plain HTML rendered on the server with
autoescaping, styled by the game pages' stylesheet, with forms and no script.
The templates are ``web/assets/templates/lobby*.html`` (their frame
``_lobby_base.html``), rendered like the seat pages (:func:`sandbox.web.pages.render`).

Three pages: the lobby (open tables, a free seat to pick, a new table), a
table's host page (its seats and their links, start, rematch, close) and a
person's seat page in the lobby (open the seat, rejoin it). No page shows a
role, a card or anything of a game in play: only seats, links and states.
"""

from __future__ import annotations

from typing import Any

from sandbox.web.lobby_table import (
    AI_KINDS,
    DEFAULT_TIMEOUT_S,
    ENDED,
    PLAYING,
    WAITING_TO_START,
    LobbySide,
    Table,
)
from sandbox.web.pages import render

AI_WORDS = {
    "file": "as the game file says (its people and programs: baseline bots)",
    "baseline": "the variant's baseline bot",
    "random": "random legal answers",
}
STATUS_WORDS = {
    WAITING_TO_START: "waiting for its people",
    PLAYING: "playing",
    ENDED: "game over",
    "failed": "stopped",
    "closed": "closed",
}


def _render(name: str, **context: Any) -> str:
    """The lobby's page ``lobby_<name>.html`` (``lobby.html`` for the lobby
    itself), through the one template environment of the web room."""
    template = "lobby.html" if name == "lobby" else f"lobby_{name}.html"
    return render(template, language="en", refresh=context.pop("refresh", 0), **context)


def lobby_page(lobby: LobbySide, token: str) -> str:
    games = [
        {"name": name, "variant": loaded.variant.name,
         "seats": loaded.variant.rules.seat_count(loaded.game_config)}
        for name, loaded in sorted(lobby.games.items())
    ]  # fmt: skip
    tables = lobby.listing()
    return _render(
        "lobby", title="Lobby", status=f"{len(tables)} open tables", token=token,
        tables=tables, games=games, ai_kinds=AI_KINDS, ai_words=AI_WORDS,
        status_words=STATUS_WORDS, timeout_s=DEFAULT_TIMEOUT_S,
    )  # fmt: skip


def table_page(table: Table, lobby: LobbySide) -> str:
    token = table.host_page.token
    rows = [{**row, "link": lobby.link("/", row["token"])} for row in table.seat_rows()]
    status = table.status()
    return _render(
        "table", title=f"Table {table.number}", status=STATUS_WORDS.get(status, status),
        state=status, token=token, table=table, variant=table.loaded.variant.name, rows=rows,
        ai=AI_WORDS[table.settings.ai], waiting=WAITING_TO_START, ended=ENDED,
        # the host watches seats fill and games end; the page has only buttons to lose
        refresh=3 if status in (WAITING_TO_START, PLAYING) else 0,
    )  # fmt: skip


def seat_page(table: Table, seat: int, lobby: LobbySide) -> str:
    page = table.seat_pages[seat]
    status = table.status()
    return _render(
        "seat", title=f"Seat {seat}", status=STATUS_WORDS.get(status, status),
        token=page.token, table=table, seat=seat,
    )  # fmt: skip


def refused_page(message: str, back: str, token: str) -> str:
    return _render("refused", title="Refused", status="", token=token, message=message, back=back)
