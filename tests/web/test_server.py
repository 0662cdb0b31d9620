"""The web server itself: who may reach it, what it serves, what it refuses."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
import websockets.sync.client as ws_client
from websockets.exceptions import InvalidStatus

from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext
from sandbox.web.board import Board
from sandbox.web.hub import Audience, HubError, WebHub
from sandbox.web.limits import MAX_DEPTH, nesting_depth, parse_body, wait_seconds
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.core.toy import Toy, ToyConfig
from tests.web.helpers import Client, GameThread, other_token


def test_every_request_needs_the_token(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2.hub, seat2.audience)
    status, page = client.request("GET", "/")
    assert status == 200 and "<title>Seat 2</title>" in page
    wrong = Client(seat2.hub, other_token(seat2.token))
    for path in ("/", "/api/state", "/static/app.js"):
        assert client.request("GET", path, token=False)[0] == 403, path
        assert wrong.request("GET", path)[0] == 403, path
    assert client.request("POST", "/api/leave", {}, token=False)[0] == 403
    assert not seat2.left  # the forbidden leave did nothing


def test_a_websocket_with_a_wrong_token_is_refused(seat2: HumanBrowserAgent) -> None:
    with pytest.raises(InvalidStatus) as refused:
        ws_client.connect(f"ws://127.0.0.1:{seat2.hub.port}/ws?t=nope", open_timeout=5)
    assert refused.value.response.status_code == 403


def test_foreign_host_header_is_refused(seat2: HumanBrowserAgent) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name.
    client = Client(seat2.hub, seat2.audience)
    assert client.request("GET", "/", host=f"evil.example:{seat2.hub.port}")[0] == 403
    assert client.request("GET", "/", host=f"localhost:{seat2.hub.port}")[0] == 200


def test_only_the_pages_endpoints_exist(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2.hub, seat2.audience)
    for path in ("/api/game", "/api/transcript", "/api/events", "/static/../hub.py", "/x"):
        assert client.request("GET", path)[0] == 404, path
    # a seat's token cannot act as the host
    assert client.request("POST", "/api/host/take", {"seat": 1})[0] == 403


def test_security_headers_and_static_assets(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2.hub, seat2.audience)
    headers = client.headers("/")
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "default-src 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"
    status, script = client.request("GET", "/static/app.js")
    assert status == 200 and "WebSocket" not in script and "Live.connect" in script
    assert client.headers("/static/app.css")["content-type"].startswith("text/css")


def test_loopback_by_default_and_tokens_stay_out_of_descriptions(
    seat2: HumanBrowserAgent,
) -> None:
    assert seat2.url == f"http://127.0.0.1:{seat2.hub.port}/?t={seat2.token}"
    assert seat2.hub.host == "127.0.0.1"
    assert seat2.token not in str(seat2.describe())


def test_a_busy_port_is_a_one_line_setup_error(seat2: HumanBrowserAgent) -> None:
    with pytest.raises(HubError, match=f"127.0.0.1:{seat2.hub.port}"):
        WebHub(port=seat2.hub.port)


def test_a_lan_host_warns(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    # 127.0.0.2 stands for a LAN address: the test never listens beyond loopback.
    run = WebRun(host="127.0.0.2", announce=lines.append)
    try:
        hub = run.hub()
        assert lines and lines[0].startswith("warning:") and "other machines" in lines[0]
        assert hub.url(hub.find("nothing") or _any(hub)).startswith("http://127.0.0.2:")
        assert {f"127.0.0.2:{hub.port}", f"127.0.0.1:{hub.port}"} <= hub.allowed_hosts
        assert f"evil.example:{hub.port}" not in hub.allowed_hosts
    finally:
        run.stop()


def _any(hub: WebHub) -> Audience:
    return hub.add(Audience("watch", Board(), "x"))


def test_server_stops() -> None:
    run = WebRun()
    port = run.hub().port
    run.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


# ------------------------------------------------------------------ issue 14


def test_wait_nan_returns_at_once(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2.hub, seat2.audience)
    version = client.state()["version"]
    for wait in ("nan", "NaN", "-inf", "-1", "abc"):
        started = time.monotonic()
        status, _ = client.request("GET", f"/api/state?since={version}&wait={wait}")
        assert status == 200
        assert time.monotonic() - started < 2, wait
    assert wait_seconds("nan") == 0 and wait_seconds("3") == 3
    assert wait_seconds("inf") == wait_seconds("1e999") == 25  # capped


def test_deep_json_is_a_400_not_a_crash(seat2: HumanBrowserAgent) -> None:
    client = Client(seat2.hub, seat2.audience)
    deep = b"[" * 20_000 + b"]" * 20_000
    status, text = client.request("POST", "/api/answer", raw=deep)
    assert status == 400 and "nested deeper" in text
    big = b'{"answer": "' + b"x" * 70_000 + b'"}'
    assert client.request("POST", "/api/answer", raw=big)[0] == 413
    assert client.request("POST", "/api/answer", raw=b'{"answer": NaN}')[0] == 400
    assert client.request("GET", "/")[0] == 200  # the server is still up
    assert nesting_depth('{"a": "[[[[", "b": [1, [2]]}') == 3
    with pytest.raises(ValueError):
        parse_body(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))


def test_marker_strings_in_a_speech_stay_text(web: WebRun) -> None:
    """A speech holding the old template's markers is shown as written."""
    from sandbox.agents.simple import ScriptedAgent

    hostile = "@@INITIAL@@ @@FORM@@ @@VIEW@@ {{ 7*7 }} <script>x()</script>"
    seat2 = HumanBrowserAgent(2, web.hub())
    others = {
        1: ScriptedAgent([{"pick": 1}, {"speech": hostile}], "random", 1),
        3: ScriptedAgent([{"pick": 3}], "random", 3),
    }
    thread = GameThread(Game.new(Toy(), ToyConfig(), 4), {**others, 2: seat2})
    thread.start()
    client = Client(web.hub(), seat2.audience)
    first = client.my_turn()
    client.answer(first["request_id"], {"pick": 2})
    second = client.my_turn(other_than=first["request_id"])
    page = client.request("GET", "/")[1]
    for text in (second["view_html"], page):
        assert "@@INITIAL@@ @@FORM@@ @@VIEW@@ {{ 7*7 }} &lt;script&gt;x()&lt;/script&gt;" in text
        assert "<script>x()" not in text and "49" not in text.split("@@VIEW@@")[1][:10]
    assert page.count('<form id="decision"') == 1  # the form was not pasted in twice
    client.answer(second["request_id"], {"pick": 1})
    seat2.leave()
    thread.finish()


def test_the_websocket_pushes_every_change(seat2: HumanBrowserAgent) -> None:
    url = f"ws://127.0.0.1:{seat2.hub.port}/ws?t={seat2.token}"
    with ws_client.connect(url, open_timeout=5) as socket_:
        first = json.loads(socket_.recv(timeout=5))
        assert first["status"] == "waiting" and first["seat"] == 2
        game = Game.new(Toy(), ToyConfig(), 4)
        request = next(r for r in game.pending() if r.seat == 2)

        async def ask() -> None:
            task = asyncio.ensure_future(seat2.decide(DecisionContext.for_request(game, request)))
            await asyncio.sleep(0.2)
            seat2.leave()
            await task

        asyncio.run(ask())
        seen = [json.loads(socket_.recv(timeout=5)) for _ in range(2)]
        assert seen[0]["status"] == "your_turn" and seen[0]["request_id"] == request.id
        assert seen[-1]["status"] == "left"
        assert seen[0]["version"] < seen[-1]["version"]
