"""The lobby (issue 38 item 2) over real HTTP on loopback, as a program speaks
to it: tokens refused in one line, a flooding client refused, two people
picking one seat, a table that starts when its seats fill or when its host
says, a person who leaves and rejoins, a rematch with the same people.

Every wait is on a condition (with a bound that makes a stuck test fail)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.session.gamefile import parse_config
from sandbox.web.lobby import Lobby
from sandbox.web.lobby_routes import FLOODING, LOBBY_BODY_BYTES, REQUEST_BURST
from tests.web.helpers import WAIT_S, Client, first_legal, other_token, quiet


def killer() -> dict[str, object]:
    return {"variant": "killer", "rules": {"players": 11}, "default_agent": {"kind": "baseline"}}


@pytest.fixture
def lobby(tmp_path: Path) -> Iterator[Lobby]:
    served = Lobby({"killer": parse_config(killer())}, out=tmp_path, pace_s=0, seed=3,
                   max_tables=3, announce=quiet)  # fmt: skip
    yield served
    served.stop()


def call(
    lobby: Lobby, path: str, token: str, body: object = None, *, host: str | None = None
) -> tuple[int, dict[str, Any]]:
    """One JSON request to the lobby's server: (status, the reply's object)."""
    conn = http.client.HTTPConnection("127.0.0.1", lobby.hub.port, timeout=WAIT_S)
    try:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if host is not None:
            headers["Host"] = host
        data = None if body is None else json.dumps(body).encode()
        conn.request("GET" if body is None else "POST", f"{path}?t={token}", data, headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8")
    finally:
        conn.close()
    assert "\n" not in text.strip(), "a reply is one line"
    reply: dict[str, Any] = json.loads(text)
    return response.status, reply


def create(lobby: Lobby, **settings: object) -> dict[str, Any]:
    body = {"game": "killer", "open": [1, 2], "ai": "random", **settings}
    status, reply = call(lobby, "/lobby/create", lobby.page.token, body)
    assert status == 200, reply
    return reply


def pick(lobby: Lobby, table: int, seat: int) -> tuple[int, dict[str, Any]]:
    return call(lobby, "/lobby/pick", lobby.page.token, {"table": table, "seat": seat})


def status_of(lobby: Lobby, host: str) -> dict[str, Any]:
    status, reply = call(lobby, "/lobby/table", host)
    assert status == 200, reply
    return reply


def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S * 4
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def play_seat(url: str, stop: Callable[[], bool]) -> int:
    """A person answering every question of one seat with its first option
    until ``stop``; the number of answers."""
    client, last, answered = Client.of_url(url), None, 0
    while not stop():
        state = client.state()
        if state["status"] == "your_turn" and state["request_id"] != last:
            last = state["request_id"]
            client.answer(last, first_legal(state["form_html"]))
            answered += 1
        time.sleep(0.01)
    return answered


# ---------------------------------------------------------------- tokens


def test_every_token_reaches_only_its_own_routes(lobby: Lobby) -> None:
    table = create(lobby)
    host, seat_url = table["host"], table["seats"]["1"]
    seat = seat_url.split("t=")[1]
    refused = [
        ("/lobby", other_token(lobby.page.token), None),
        ("/lobby/tables", "", None),
        ("/lobby/create", seat, {"game": "killer", "open": [1]}),
        ("/lobby/create", host, {"game": "killer", "open": [1]}),
        ("/lobby/pick", host, {"table": 1, "seat": 2}),
        ("/lobby/start", lobby.page.token, {}),
        ("/lobby/rematch", seat, {}),
        ("/lobby/close", seat, {}),
        ("/lobby/rejoin", host, {}),
        ("/lobby/table", seat, None),
        ("/lobby/seat", lobby.page.token, None),
    ]
    for path, token, body in refused:
        status, reply = call(lobby, path, token, body)
        assert status == 403, (path, reply)
        assert reply["ok"] is False and reply["error"], (path, reply)
    # another site's name for this server (DNS rebinding): refused before any route
    status, reply = call(lobby, "/lobby", lobby.page.token, host="evil.example:80")
    assert (status, reply) == (403, {"ok": False, "error": "forbidden"})
    # nothing was changed by the refused requests
    assert status_of(lobby, host)["status"] == "waiting"
    assert [t["free"] for t in lobby.listing()] == [[1, 2]]


def test_a_lobby_page_may_post_its_forms_and_nothing_else(lobby: Lobby) -> None:
    client = Client(lobby.hub, lobby.page)
    csp = client.headers("/lobby")["content-security-policy"]
    assert "form-action 'self'" in csp and "script-src 'self'" in csp
    # the lobby's token at the game pages' address leads to the lobby's page
    assert client.request("GET", "/")[0] == 303
    # the game's pages keep form-action 'none'
    table = create(lobby)
    assert (
        "form-action 'none'"
        in Client.of_url(table["seats"]["1"]).headers("/")["content-security-policy"]
    )


def test_bad_bodies_are_refused_in_one_line(lobby: Lobby) -> None:
    token = lobby.page.token
    cases = [
        ({"game": "chess", "open": [1]}, 400, "not served here"),
        ({"game": "killer", "open": []}, 400, "open seats"),
        ({"game": "killer", "open": [12]}, 400, "12 out of range; seats: 1..11"),
        ({"game": "killer", "open": [1], "players": 99}, 400, "players"),
        ({"game": "killer", "open": [1], "ai": "oracle"}, 400, "ai"),
        ({"game": "killer", "open": [1], "timeout_s": "nan"}, 400, "timeout_s"),
        ({"game": "killer", "open": "1" * (LOBBY_BODY_BYTES + 1)}, 413, "larger"),
    ]
    for body, status, words in cases:
        got, reply = call(lobby, "/lobby/create", token, body)
        assert got == status and words in reply["error"], (body, reply)
    # a body that is not UTF-8 text, a JSON body that is not an object
    client = Client(lobby.hub, lobby.page)
    status, text = client.request("POST", "/lobby/create", raw=b"game=\xff\xfe")
    assert (status, json.loads(text)) == (400, {"ok": False, "error": "the body is not UTF-8 text"})
    status, text = client.request("POST", "/lobby/create", [1, 2])
    assert (status, json.loads(text)) == (400, {"ok": False, "error": "send a JSON object"})
    assert lobby.listing() == []
    status, reply = pick(lobby, 9, 1)
    assert status == 404 and reply["error"] == "no open table 9"


def test_a_full_lobby_refuses_another_table(lobby: Lobby) -> None:
    for _ in range(3):
        create(lobby)
    status, reply = call(lobby, "/lobby/create", lobby.page.token, {"game": "killer", "open": [1]})
    assert status == 503 and "full (3 tables)" in reply["error"]


# ---------------------------------------------------------------- flooding


def test_a_flooding_client_is_refused_in_one_line_and_others_go_on(lobby: Lobby) -> None:
    table = create(lobby)
    statuses = [
        call(lobby, "/lobby/tables", lobby.page.token)[0] for _ in range(int(REQUEST_BURST) + 20)
    ]
    assert statuses.count(429) >= 1 and statuses[0] == 200
    status, reply = call(lobby, "/lobby/tables", lobby.page.token)
    assert (status, reply) == (429, {"ok": False, "error": FLOODING})
    # the host's own token has its own budget: the table is still hosted
    assert status_of(lobby, table["host"])["status"] == "waiting"


# ---------------------------------------------------------------- seats


def test_two_people_picking_one_seat_at_once_one_gets_it(lobby: Lobby) -> None:
    table = create(lobby, start_when_full=False)
    start = threading.Barrier(8)
    replies: list[tuple[int, dict[str, Any]]] = []

    def picker() -> None:
        start.wait(WAIT_S)
        replies.append(pick(lobby, table["table"], 1))

    threads = [threading.Thread(target=picker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    won = [reply for status, reply in replies if status == 200]
    lost = [reply for status, reply in replies if status != 200]
    assert len(won) == 1 and len(lost) == 7
    assert won[0]["url"] == table["seats"]["1"]
    assert all(r == {"ok": False, "error": "seat 1 of table 1 is taken"} for r in lost)
    assert lobby.listing()[0]["free"] == [2]


def test_opening_a_seat_link_from_the_host_takes_the_seat(lobby: Lobby) -> None:
    table = create(lobby, start_when_full=False)
    Client.of_url(table["seats"]["2"]).state()
    assert lobby.listing()[0]["free"] == [1]
    taken = {"ok": False, "error": "seat 2 of table 1 is taken"}
    assert pick(lobby, table["table"], 2) == (409, taken)


def test_the_table_starts_when_its_seats_fill(lobby: Lobby) -> None:
    table = create(lobby, start_when_full=True)
    assert pick(lobby, table["table"], 1)[0] == 200
    assert status_of(lobby, table["host"])["status"] == "waiting"
    assert pick(lobby, table["table"], 2)[0] == 200
    wait_until(lambda: lobby.table(table["table"]).status() != "waiting", "started")


def test_several_people_at_one_table_each_see_only_their_seat(lobby: Lobby) -> None:
    """Two people seated: each page holds its own card only, and a spectator
    page of a bot's seat (from the table's host panel) is narrowed to what
    every player is told (fair play, as in `sandbox run`)."""
    table = create(lobby, start_when_full=True)
    pages = {seat: Client.of_url(pick(lobby, table["table"], seat)[1]["url"]) for seat in (1, 2)}
    for seat, page in pages.items():
        card = page.wait_for(lambda s: 'class="card"' in s.get("view_html", ""))["view_html"]
        other = 3 - seat
        assert f", seat {seat}." in card and f", seat {other}." not in card
    watch = Client.of_url(lobby.table(table["table"]).panel.watch("3"))
    assert 'class="narrowed"' in watch.wait_for(lambda s: "narrowed" in s["view_html"])["view_html"]


def test_a_host_starts_the_table_when_they_say(lobby: Lobby) -> None:
    table = create(lobby, start_when_full=False)
    pick(lobby, table["table"], 1)
    pick(lobby, table["table"], 2)
    assert status_of(lobby, table["host"])["status"] == "waiting"
    status, reply = call(lobby, "/lobby/rematch", table["host"], {})
    assert status == 409 and "a rematch follows a finished game" in reply["error"]
    status, reply = call(lobby, "/lobby/start", table["host"], {})
    assert status == 200 and reply["status"] in ("playing", "ended")


def test_leave_rejoin_and_rematch_keep_the_people_and_their_links(
    lobby: Lobby, tmp_path: Path
) -> None:
    """Two people play a whole game; one leaves, and its decisions meanwhile
    are fallbacks (quit); it rejoins and answers again; the rematch has a new
    seed and the same two links."""
    table = create(lobby, start_when_full=True)
    host = table["host"]
    one = pick(lobby, table["table"], 1)[1]
    two = pick(lobby, table["table"], 2)[1]
    # polled in the process: the host's page asks a few times a minute, not 50 a second
    ended = lambda: lobby.table(table["table"]).status() == "ended"  # noqa: E731
    # seat 1 plays all along: the game goes on with seat 2's fallbacks meanwhile
    answers: list[int] = []
    player = threading.Thread(target=lambda: answers.append(play_seat(one["url"], ended)))
    player.start()
    seat_two = Client.of_url(two["url"])
    seat_two.my_turn()
    assert seat_two.request("POST", "/api/leave", {})[0] == 200
    rows = lobby.table(table["table"]).seat_rows
    wait_until(lambda: any(r["state"] == "left" for r in rows()), "left")
    seat_two.wait_for(lambda s: s["status"] == "left")
    status, reply = call(lobby, "/lobby/rejoin", two["token"], {})
    assert status == 200 and reply["url"] == two["url"]
    assert seat_two.state()["status"] != "left"
    play_seat(two["url"], ended)
    player.join(WAIT_S)
    first_seed = status_of(lobby, host)["seeds"]
    assert len(first_seed) == 1 and answers[0] > 0
    # seat 2's decisions while it was away were the referee's fallbacks, and
    # only those: it answered again after rejoining
    (path,) = (tmp_path / "lobby" / "table-1").glob("*.jsonl")
    outcome = json.loads(path.read_text("utf-8").splitlines()[-1])
    assert set(outcome["stats"]["fallbacks"].get("2", {})) == {"quit"}
    decided = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    mine = [d["data"] for d in decided if d.get("kind") == "core.decision"]
    mine = [d for d in mine if d["seat"] == 2]
    assert mine and not mine[-1]["fallback"], "seat 2 answered after rejoining"
    status, reply = call(lobby, "/lobby/rematch", host, {})
    assert status == 200 and len(reply["seeds"]) == 2 and reply["seeds"][1] != reply["seeds"][0]
    assert [row["url"] for row in reply["seats"]] == [one["url"], two["url"]]
    # the same pages, a new game: both people are asked again
    wait_until(lambda: ended() or Client.of_url(two["url"]).state()["status"] == "your_turn",
               "seat 2 asked in the rematch")  # fmt: skip
    status, reply = call(lobby, "/lobby/close", host, {})
    assert status == 200
    assert call(lobby, "/lobby/table", host)[0] == 403  # its pages are gone with it


def test_a_browser_is_refused_with_a_page_holding_the_same_line(lobby: Lobby) -> None:
    """A person whose click on a free seat came second gets a short page with
    the one line and a way back, not JSON (the first click took the seat)."""
    table = create(lobby, start_when_full=False)
    client = Client(lobby.hub, lobby.page)
    body = f"table={table['table']}&seat=1".encode()
    conn = http.client.HTTPConnection("127.0.0.1", lobby.hub.port, timeout=WAIT_S)
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"}
    statuses = []
    for _ in range(2):
        conn.request("POST", f"/lobby/pick?t={client.token}", body, headers)
        response = conn.getresponse()
        statuses.append((response.status, response.getheader("location"), response.read()))
    conn.close()
    (first, where, _), (second, _, page) = statuses
    assert first == 303 and where is not None and where.startswith("/lobby/seat?t=")
    assert second == 409
    text = page.decode("utf-8")
    assert "seat 1 of table 1 is taken" in text and f'href="/lobby?t={client.token}"' in text


def test_serve_refuses_a_missing_game_file_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sandbox.cli.main import app
    from sandbox.cli.serve import load_games

    result = CliRunner().invoke(app, ["serve", str(tmp_path / "nothing.toml")])
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path / 'nothing.toml'}: no such file or folder"
    (tmp_path / "killer.toml").write_text('variant = "killer"\n', "utf-8")
    (tmp_path / "broken.toml").write_text("variant = \n", "utf-8")
    assert list(load_games([tmp_path])) == ["killer"]  # the broken one left out, with a warning


def test_the_lobby_pages_are_template_files_of_the_web_room() -> None:
    """Issue 36: the lobby's pages are files beside the seat pages' templates,
    rendered by the same environment (autoescaped), and the wheel ships them."""
    from importlib import resources

    from sandbox.web.lobby_pages import refused_page
    from sandbox.web.pages import render

    templates = resources.files("sandbox.web.assets") / "templates"
    for name in ("_lobby_base", "lobby", "lobby_table", "lobby_seat", "lobby_refused"):
        assert (templates / f"{name}.html").is_file(), name
    page = refused_page("no <table> here", "/lobby?t=a&b", "t0")
    assert page == render(
        "lobby_refused.html", language="en", title="Refused", status="", token="t0",
        message="no <table> here", back="/lobby?t=a&b", refresh=0,
    )  # fmt: skip
    assert "no &lt;table&gt; here" in page and 'href="/lobby?t=a&amp;b"' in page
