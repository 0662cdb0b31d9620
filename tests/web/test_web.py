"""The browser seat, driven over real HTTP on loopback while the runner plays."""

from __future__ import annotations

import asyncio
import http.client
import re
import shutil
import socket
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sandbox.agents import web
from sandbox.agents.base import (
    FALLBACK_QUIT,
    FALLBACK_TIMEOUT,
    Agent,
    AgentSetupError,
    DecisionContext,
)
from sandbox.agents.human import HumanTerminalAgent
from sandbox.agents.human_seat import HumanAgent
from sandbox.agents.simple import RandomAgent, ScriptedAgent
from sandbox.agents.web import HumanBrowserAgent, make_browser_agent, render_form
from sandbox.config import parse_config
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.seating import build_agents
from sandbox.session import GameRecord, play_game
from sandbox.transcript import load
from tests.core.toy import Toy, ToyConfig
from tests.web.helpers import Client, GameThread, first_legal, read_form

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>alert('seat')</script> & \"quoted\" <b>bold</b>"


def quiet(line: str) -> None:
    """Tests do not print the URL."""


@pytest.fixture
def seat2() -> Iterator[HumanBrowserAgent]:
    agent = HumanBrowserAgent(2, announce=quiet)
    yield agent
    asyncio.run(agent.close())


def toy_game(seat2_agent: Agent, others: dict[int, Agent] | None = None) -> GameThread:
    agents = others or {1: RandomAgent(11), 3: RandomAgent(13)}
    return GameThread(Game.new(Toy(), ToyConfig(), 4), {**agents, 2: seat2_agent})


def play_out(client: Client, thread: GameThread) -> None:
    """Answer every later question with its first option until the game ends."""
    last: str | None = None
    while thread.is_alive():
        try:
            state = client.state()
        except OSError:  # the game ended and closed the server meanwhile
            break
        if state["status"] == "your_turn" and state["request_id"] != last:
            last = state["request_id"]
            client.answer(last, first_legal(state["form_html"]))
        thread.join(0.01)


def decisions_of(game: Game, seat: int) -> list[DecisionMade]:
    return [e for e in game.events if isinstance(e, DecisionMade) and e.seat == seat]


# ------------------------------------------------------------------ access


def test_page_needs_the_token(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2)
    status, page = client.request("GET", "/")
    assert status == 200 and "<title>Seat 2</title>" in page
    assert client.request("GET", "/", token=False)[0] == 403
    assert Client(seat2, token="x" + seat2.token[1:]).request("GET", "/")[0] == 403
    assert client.request("GET", "/api/state", token=False)[0] == 403
    assert client.request("POST", "/api/leave", {}, token=False)[0] == 403
    assert not seat2.left  # the forbidden leave did nothing


def test_foreign_host_header_is_refused(seat2: HumanBrowserAgent) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name.
    assert Client(seat2).request("GET", "/", host=f"evil.example:{seat2.port}")[0] == 403


def test_only_the_seat_endpoints_exist(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2)
    for path in ("/api/game", "/api/transcript", "/api/events", "/api/state/../game", "/x"):
        assert client.request("GET", path)[0] == 404, path
    state = client.state()
    assert set(state) == {
        "seat", "epoch", "version", "status", "view_html", "form_html", "request_id", "error",
    }  # fmt: skip


def test_url_is_loopback_with_token(seat2: HumanBrowserAgent) -> None:
    assert seat2.url == f"http://127.0.0.1:{seat2.port}/?t={seat2.token}"
    assert seat2._server.server_address[0] == "127.0.0.1"
    assert "token" not in str(seat2.describe()) and seat2.token not in str(seat2.describe())


# ------------------------------------------------------------------ playing


def test_form_offers_exactly_the_legal_options_and_refusals_ask_again(
    seat2: HumanBrowserAgent,
) -> None:
    thread = toy_game(seat2)
    thread.start()
    client = Client(seat2)
    state = client.my_turn()
    request = next(r for r in thread.game.pending() if r.seat == 2)
    assert state["request_id"] == request.id
    kind, options = read_form(state["form_html"]).fields["pick"]
    pick = request.field("pick")
    assert isinstance(pick, Choice)
    assert kind == "choice" and options == list(pick.legal())  # incl. None: nullable
    assert "T-1" in state["form_html"] and "Pick." in state["form_html"]

    status, reply = client.answer(request.id, {"pick": 7})
    assert status == 422 and not reply["ok"]
    assert reply["error"].startswith("[T-1]") and "'pick'" in reply["error"]
    again = client.state()
    assert again["status"] == "your_turn" and again["request_id"] == request.id
    assert again["error"] == reply["error"]  # a reload shows the referee's message too

    status, reply = client.answer(request.id, {"pick": 2})
    assert (status, reply) == (200, {"ok": True})
    play_out(client, thread)
    thread.finish()
    first = decisions_of(thread.game, 2)[0]
    assert first.request_id == request.id
    assert dict(first.payload) == {"pick": 2} and not first.fallback


def test_stale_or_malformed_answers_are_refused(seat2: HumanBrowserAgent) -> None:
    thread = toy_game(seat2)
    thread.start()
    client = Client(seat2)
    state = client.my_turn()
    assert client.answer("not-this-one", {"pick": 1})[0] == 409
    status, text = client.request("POST", "/api/answer", "just a string")
    assert status == 400 and "answer" in text
    assert client.state()["status"] == "your_turn"  # still asked
    client.answer(state["request_id"], {"pick": 1})
    play_out(client, thread)
    thread.finish()
    assert not any(d.fallback for d in decisions_of(thread.game, 2))


def test_hostile_speech_is_escaped_on_the_page(seat2: HumanBrowserAgent) -> None:
    # Seat 1 picks the lowest unique number, so it speaks (T-2); seat 2 then sees it.
    others: dict[int, Agent] = {
        1: ScriptedAgent([{"pick": 1}, {"speech": HOSTILE}], "random", 1),
        3: ScriptedAgent([{"pick": 3}], "random", 3),
    }
    thread = toy_game(seat2, others)
    thread.start()
    client = Client(seat2)
    first = client.my_turn()
    client.answer(first["request_id"], {"pick": 2})
    second = client.my_turn(other_than=first["request_id"])
    for text in (second["view_html"], client.request("GET", "/")[1]):
        assert "<script>alert" not in text and "<b>bold" not in text
        quotes = SpeechReader.read(text)
        assert quotes == [("Seat 1", HOSTILE)]  # shown verbatim, as text, with its speaker
    assert 'class="referee' in second["view_html"]  # the referee's voice is styled apart
    play_out(client, thread)
    thread.finish()


class SpeechReader(HTMLParser):
    """(speaker, text) of every quoted speech; counts stray script tags."""

    def __init__(self) -> None:
        super().__init__()
        self.quotes: list[tuple[str, str]] = []
        self._where = ""
        self._who = ""

    @classmethod
    def read(cls, html_text: str) -> list[tuple[str, str]]:
        reader = cls()
        reader.feed(html_text)
        return reader.quotes

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "span" and classes == "who":
            self._where, self._who = "who", ""
        elif tag == "blockquote":
            self._where = "said"
            self.quotes.append((self._who, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("span", "blockquote"):
            self._where = ""

    def handle_data(self, data: str) -> None:
        if self._where == "who":
            self._who += data
        elif self._where == "said":
            who, said = self.quotes[-1]
            self.quotes[-1] = (who, said + data)


def test_leave_gives_quit_fallbacks_for_every_later_decision() -> None:
    loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
    game = Game.new(loaded.variant, loaded.game_config, 3)
    agent = HumanBrowserAgent(3, announce=quiet)
    others: dict[int, Agent] = {s: RandomAgent(100 + s) for s in game.seats if s != 3}
    thread = GameThread(game, {**others, 3: agent})
    thread.start()
    client = Client(agent)
    state = client.my_turn()
    visible = {seq for seq, _ in game.visible_events(3)}
    shown = {int(s) for s in re.findall(r'data-seq="(\d+)"', state["view_html"])}
    assert shown and shown <= visible < set(range(len(game.events)))  # only its own view
    assert client.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
    client.wait_for(lambda s: s["request_id"] != state["request_id"])
    assert client.request("POST", "/api/leave", {})[0] == 200
    thread.finish()
    mine = decisions_of(game, 3)
    assert not mine[0].fallback
    later = mine[1:]
    assert later and all(d.fallback and d.fallback_reason == FALLBACK_QUIT for d in later)
    assert thread.runner.stats.fallbacks[3] == {FALLBACK_QUIT: len(later)}


def test_leaving_before_the_first_question_quits_them_all(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2)
    client.request("POST", "/api/leave", {})
    assert client.state()["status"] == "left"
    thread = toy_game(seat2)
    thread.start()
    thread.finish()
    mine = decisions_of(thread.game, 2)
    assert mine and all(d.fallback_reason == FALLBACK_QUIT for d in mine)


def test_optional_timeout_falls_back() -> None:
    agent = HumanBrowserAgent(2, decision_timeout_s=0.05, announce=quiet)
    game = Game.new(Toy(), ToyConfig(), 4)
    request = next(r for r in game.pending() if r.seat == 2)
    ctx = DecisionContext.for_request(game, request)
    try:
        answer = asyncio.run(agent.decide(ctx))
    finally:
        asyncio.run(agent.close())
    assert answer.payload is None and answer.fallback_reason == FALLBACK_TIMEOUT


# ------------------------------------------------------------------ lifecycle


def test_server_stops_on_close() -> None:
    agent = HumanBrowserAgent(2, announce=quiet)
    port = agent.port
    assert Client(agent).request("GET", "/")[0] == 200
    asyncio.run(agent.close())
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert not agent._thread.is_alive()


def test_a_busy_configured_port_is_a_setup_error(seat2: HumanBrowserAgent) -> None:
    with pytest.raises(AgentSetupError, match=f"127.0.0.1:{seat2.port}"):
        HumanBrowserAgent(4, seat2.port, announce=quiet)


def test_config_dispatch_and_url_printed_once_per_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(web, "_SERIES_ADDRESSES", {})
    loaded = parse_config(
        {"variant": "killer", "rules": {"players": 11}, "default_agent": {"kind": "human"}}
    )
    terminal = build_agents(loaded, {3: "civilian"}, 1)[3]
    assert isinstance(terminal, HumanAgent) and isinstance(terminal._seat, HumanTerminalAgent)
    loaded = parse_config(
        {
            "variant": "killer",
            "rules": {"players": 11},
            "default_agent": {"kind": "human", "interface": "browser"},
        }
    )
    seated = build_agents(loaded, {3: "civilian"}, 1)[3]
    assert isinstance(seated, HumanAgent)
    first = seated._seat
    assert isinstance(first, HumanBrowserAgent)
    asyncio.run(first.close())
    second = make_browser_agent(None, 3)  # the next game of a series
    asyncio.run(second.close())
    out = capsys.readouterr()
    assert out.out == ""  # stdout stays clean for --json
    assert out.err.splitlines() == [f"seat 3: open {first.url}"]
    assert (second.token, second.port) == (first.token, first.port)


# ------------------------------------------------------------------ rendering


def test_every_field_kind_becomes_its_control() -> None:
    request = DecisionRequest(
        "r1",
        2,
        "mixed",
        "X-1",
        "Do <it>",
        (
            Choice("few", (1, "two", True), "a few"),
            Choice("many", tuple(range(1, 31)), "many", nullable=True),
            MultiChoice("some", (4, 5, 6), "several", max_items=2),
            Text("speech", "say", max_chars=300),
        ),
    )
    markup = render_form(request)
    form = read_form(markup)
    assert form.fields == {
        "few": ("choice", [1, "two", True]),
        "many": ("choice", [*range(1, 31), None]),
        "some": ("multi", [4, 5, 6]),
        "speech": ("text", []),
    }
    assert form.limits == {"speech": 300}
    assert 'type="radio"' in markup and "<select" in markup and 'type="checkbox"' in markup
    assert "Do &lt;it&gt;" in markup


# ------------------------------------------------------------------ a real browser


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_headless_chromium_renders_the_page(seat2: HumanBrowserAgent, tmp_path: Path) -> None:
    shot = tmp_path / "seat.png"
    command = [
        str(shutil.which("chromium")),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1000,800",
        f"--screenshot={shot}",
        seat2.url,
    ]
    subprocess.run(command, capture_output=True, timeout=60, check=False)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000
    # The page's script ran: it fetched the state and wrote the status line.
    command[-2] = "--dump-dom"
    dom = subprocess.run(command, capture_output=True, timeout=60, check=False, text=True)
    assert '<span id="status" class="waiting">Waiting for the other seats' in dom.stdout


# ------------------------------------------------------------------ the shipped config


def test_shipped_config_plays_through_the_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    raw = tomllib.loads((ROOT / "configs" / "killer_human_browser.toml").read_text())
    raw["agent"][0]["port"] = 0  # 8765 may be taken on a shared machine
    loaded = parse_config(raw)
    addresses: dict[int, tuple[str, int]] = {}
    monkeypatch.setattr(web, "_SERIES_ADDRESSES", addresses)
    records: list[GameRecord] = []
    game = threading.Thread(
        target=lambda: records.append(play_game(loaded, 5, tmp_path)), daemon=True
    )
    game.start()
    deadline = time.monotonic() + 5
    while 3 not in addresses and time.monotonic() < deadline:
        time.sleep(0.01)
    token, port = addresses[3]
    leave = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    leave.request("POST", f"/api/leave?t={token}", body=b"{}")
    assert leave.getresponse().status == 200
    game.join(10)
    (record,) = records
    quits = record.stats.fallbacks[3]
    assert set(quits) == {FALLBACK_QUIT} and quits[FALLBACK_QUIT] > 0
    transcript = load(record.path)
    assert transcript.header["agents"]["3"] == {"kind": "human", "interface": "browser"}
    assert token not in record.path.read_text()  # the seat's key never reaches the file
