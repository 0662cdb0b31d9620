"""The lobby's pages (issue 38 item 2): plain HTML rendered on the server with
autoescaping, styled by the game pages' stylesheet, with forms and no script.

Three pages: the lobby (open tables, a free seat to pick, a new table), a
table's host page (its seats and their links, start, rematch, close) and a
person's seat page in the lobby (open the seat, rejoin it). No page shows a
role, a card or anything of a game in play: only seats, links and states.
"""

from __future__ import annotations

from typing import Any

from jinja2 import DictLoader, Environment, StrictUndefined, select_autoescape

from sandbox.web.lobby_table import (
    AI_KINDS,
    DEFAULT_TIMEOUT_S,
    ENDED,
    PLAYING,
    WAITING_TO_START,
    LobbySide,
    Table,
)

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

_BASE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
{% if refresh %}<meta http-equiv="refresh" content="{{ refresh }}">{% endif %}
<title>{{ title }}</title>
<link rel="stylesheet" href="/static/app.css?t={{ token }}">
</head>
<body data-mode="lobby">
<header><h1>{{ title }}</h1><span id="status" role="status">{{ status }}</span></header>
<main class="host">
{% block main %}{% endblock %}
</main>
</body>
</html>
"""

_LOBBY = """{% extends "base" %}
{% block main %}
<section id="tables">
<h2>Open tables</h2>
{% if tables %}
<table>
<thead><tr><th scope="col">Table</th><th scope="col">Game</th><th scope="col">Seats</th>
<th scope="col">State</th><th scope="col">Free seats</th></tr></thead>
<tbody>
{% for row in tables %}
<tr data-table="{{ row.table }}">
<td>{{ row.table }}</td><td>{{ row.game }} ({{ row.variant }})</td>
<td>{{ row.seats }} · people at {{ row.open|join(", ") }}</td>
<td>{{ status_words.get(row.status, row.status) }}
{%- if row.games > 1 %} · game {{ row.games }}{% endif %}</td>
<td>{% for seat in row.free %}
<form method="post" action="/lobby/pick?t={{ token }}" class="pick">
<input type="hidden" name="table" value="{{ row.table }}">
<input type="hidden" name="seat" value="{{ seat }}">
<button type="submit" data-seat="{{ seat }}">Take seat {{ seat }}</button>
</form>
{% else %}none{% endfor %}</td>
</tr>
{% endfor %}
</tbody>
</table>
{% else %}
<p>No table yet: create one below.</p>
{% endif %}
<p><a href="/lobby?t={{ token }}">Refresh</a></p>
</section>
<section id="new-table">
<h2>New table</h2>
<form method="post" action="/lobby/create?t={{ token }}">
<dl>
<dt><label for="game">Game file</label></dt>
<dd><select id="game" name="game">
{% for game in games %}
<option value="{{ game.name }}">
{{- game.name }} — {{ game.variant }}, {{ game.seats }} seats</option>
{% endfor %}</select></dd>
<dt><label for="players">Seats</label></dt>
<dd><input id="players" name="players" inputmode="numeric" placeholder="as the game file says"></dd>
<dt><label for="open">Seats for people</label></dt>
<dd><input id="open" name="open" placeholder="e.g. 1, 2" required></dd>
<dt><label for="ai">The other seats</label></dt>
<dd><select id="ai" name="ai">
{% for kind in ai_kinds %}
<option value="{{ kind }}"{% if kind == "baseline" %} selected{% endif %}>
{{- ai_words[kind] }}</option>
{% endfor %}</select></dd>
<dt><label for="timeout_s">Seconds per decision</label></dt>
<dd><input id="timeout_s" name="timeout_s" inputmode="numeric" value="{{ timeout_s|int }}">
<small>then the referee's fallback (a person away does not hold the table)</small></dd>
<dt><label for="start_when_full">Start</label></dt>
<dd><label><input type="checkbox" id="start_when_full" name="start_when_full" checked>
when every seat for people is taken</label> <small>else when the host says</small></dd>
</dl>
<p><button type="submit" id="create">Create table</button></p>
</form>
</section>
{% endblock %}
"""

_TABLE = """{% extends "base" %}
{% block main %}
<section id="table">
<h2>Table {{ table.number }}: {{ table.settings.game }}
({{ variant }}, {{ table.seats }} seats)</h2>
{% if table.error %}<p id="error" role="alert">{{ table.error }}</p>{% endif %}
<p>Give each person the link of their seat, or let them take a free seat in the lobby.
A seat is taken when its link is first opened.</p>
<table id="seats">
<thead><tr><th scope="col">Seat</th><th scope="col">State</th><th scope="col">Link</th></tr></thead>
<tbody>
{% for row in rows %}
<tr data-seat="{{ row.seat }}" data-state="{{ row.state }}">
<td>{{ row.seat }}</td><td>{{ row.state }}</td>
<td><a href="{{ row.link }}" target="_blank" rel="noopener noreferrer">{{ row.link }}</a></td></tr>
{% endfor %}
</tbody>
</table>
<p>The other seats: {{ ai }}. Seeds so far: {{ table.seeds|join(", ") }}.</p>
{% if state == waiting %}
<form method="post" action="/lobby/start?t={{ token }}">
<button type="submit" id="start">Start now</button></form>
{% endif %}
{% if state == ended %}
<form method="post" action="/lobby/rematch?t={{ token }}">
<button type="submit" id="rematch">Rematch (same people, new seed)</button></form>
{% endif %}
<form method="post" action="/lobby/close?t={{ token }}">
<button type="submit" id="close">Close table</button></form>
<p><a href="/?t={{ token }}" target="_blank" rel="noopener noreferrer">Host panel</a>:
hand a seat to a person or back to an AI, spectator links.</p>
<p><a href="/lobby/table?t={{ token }}">Refresh</a></p>
</section>
{% endblock %}
"""

_SEAT = """{% extends "base" %}
{% block main %}
<section id="seat">
<h2>Table {{ table.number }}, seat {{ seat }}</h2>
<p><a id="open-seat" href="/?t={{ token }}">Open your seat</a></p>
<p>Keep this page's address: if you leave the game or lose the connection, come back
here and rejoin. While you are away the referee answers for you (its fallbacks).</p>
<form method="post" action="/lobby/rejoin?t={{ token }}">
<button type="submit" id="rejoin">Rejoin my seat</button></form>
</section>
{% endblock %}
"""

_REFUSED = """{% extends "base" %}
{% block main %}
<section><p id="error" role="alert">{{ message }}</p>
{% if back %}<p><a href="{{ back }}">Back</a></p>{% endif %}</section>
{% endblock %}
"""

_ENV = Environment(
    loader=DictLoader(
        {"base": _BASE, "lobby": _LOBBY, "table": _TABLE, "seat": _SEAT, "refused": _REFUSED}
    ),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _render(name: str, **context: Any) -> str:
    return _ENV.get_template(name).render(refresh=context.pop("refresh", 0), **context)


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
