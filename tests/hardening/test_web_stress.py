"""The host panel and spectators under stress (issue 25, item 4): two host pages
on one seat, switches in the middle of a sealed decision or an open question, a
person's answer racing the host's hand-back; fifty spectator sockets, one that
never reads and one that floods, which change nothing in the game. Real servers
on loopback, real games; every wait is bounded (a stuck test fails, no timing is
asserted)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets.sync.client as ws_client
from websockets.exceptions import ConnectionClosed, InvalidStatus

from sandbox.core.events import DecisionMade
from sandbox.session import play_game
from sandbox.session.gamefile import parse_config
from sandbox.transcript import Transcript, read_transcript
from sandbox.web.board import Board
from sandbox.web.hub import FLOOD_REFUSAL, Audience, WebHub
from sandbox.web.run import WebRun
from tests.web.helpers import WAIT_S, Client, first_legal, quiet
from tests.web.test_control import PanelGame, all_ai_killer, host_client, post


def at_once(*actions: Callable[[], Any]) -> list[Any]:
    """Run ``actions`` in threads released together; their results in order."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(i: int) -> None:
        barrier.wait(WAIT_S)
        results[i] = actions[i]()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
        assert not thread.is_alive(), "an action never returned"
    return results


def one_line_error(text: str) -> str:
    """The refusal's message, checked to be one line of JSON ``{"ok": false, "error"}``."""
    assert "\n" not in text.strip(), text
    reply = json.loads(text)
    assert reply["ok"] is False and isinstance(reply["error"], str) and reply["error"], reply
    assert "\n" not in reply["error"] and "Traceback" not in reply["error"]
    return str(reply["error"])


def until(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def on_game_loop(web: WebRun, work: Callable[[], Any]) -> Any:
    """``work`` run on the game's own loop, between two of its steps: the host's
    clicks land there with no game code in between (the worst moment)."""
    loop = web._loop
    assert loop is not None
    done = threading.Event()
    box: list[Any] = []
    loop.call_soon_threadsafe(lambda: (box.append(work()), done.set()))
    assert done.wait(WAIT_S)
    return box[0]


def decisions_of(transcript: Transcript, seat: int) -> dict[str, DecisionMade]:
    return {
        e.request_id: e for e in transcript.events if isinstance(e, DecisionMade) and e.seat == seat
    }


def holds(made: DecisionMade, answer: dict[str, object]) -> bool:
    """The recorded payload (as JSON) is the answer sent (the referee may add fields)."""
    payload = made.to_json()["data"]["payload"]
    return all(payload.get(k) == v for k, v in answer.items())


def switches(transcript: Transcript) -> list[tuple[int, str, str, str]]:
    return [
        (c["seat"], c["request_id"], c["from"]["kind"], c["to"]["kind"])
        for c in transcript.controls
    ]


# ---------------------------------------------------------------- the host panel


def test_two_host_pages_take_the_same_seat_at_once(tmp_path: Path) -> None:
    """Both "take" clicks get the same person's page; of two "hand back" clicks
    one is done and the other refused in one line; one switch each way."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        first, second = host_client(web), host_client(web)  # two host pages
        game.ready(first)
        taken = at_once(
            lambda: post(first, "/api/host/take", {"seat": 4}),
            lambda: post(second, "/api/host/take", {"seat": 4}),
        )
        assert [status for status, _ in taken] == [200, 200]
        assert taken[0][1]["url"] == taken[1][1]["url"]
        seat_pages = [a for a in web.hub().audiences() if a.kind == "seat"]
        assert len(seat_pages) == 1  # one person's page, not two
        person = Client.of_url(str(taken[0][1]["url"]))
        assert post(first, "/api/host/start", {})[0] == 200
        state = person.my_turn()
        assert person.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
        person.my_turn(other_than=state["request_id"])
        returned = at_once(
            lambda: first.request("POST", "/api/host/return", {"seat": 4}),
            lambda: second.request("POST", "/api/host/return", {"seat": 4}),
        )
        assert sorted(status for status, _ in returned) == [200, 400]
        refusal = next(text for status, text in returned if status == 400)
        assert one_line_error(refusal) == "seat 4 is not played by a person (it is baseline)"
        person.wait_for(lambda s: s["status"] == "handed_back")
        game.join(WAIT_S * 4)
        assert not game.is_alive() and game.path is not None
    finally:
        web.stop()
    moves = [
        (seat, before, after) for seat, _, before, after in switches(read_transcript(game.path))
    ]
    assert moves == [(4, "baseline", "human"), (4, "human", "baseline")]


def test_a_seat_handed_back_before_its_person_is_asked(tmp_path: Path) -> None:
    """Taken and handed back before its next decision: the page says it is no
    longer this person's seat (it used to wait forever), the panel offers the seat
    again, and a new take gives a new page; the first person never played."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        status, reply = post(host, "/api/host/take", {"seat": 5})
        assert status == 200
        early = Client.of_url(str(reply["url"]))
        assert post(host, "/api/host/return", {"seat": 5})[0] == 200
        assert early.wait_for(lambda s: s["status"] == "handed_back")["form_html"] == ""
        rows = host.wait_for(lambda s: s["seats"][4]["can_take"])["seats"]
        assert rows[4]["url"] == "" and not rows[4]["can_return"]
        status, reply = post(host, "/api/host/take", {"seat": 5})
        assert status == 200 and reply["url"] != early_url(early)
        person = Client.of_url(str(reply["url"]))
        assert post(host, "/api/host/start", {})[0] == 200
        state = person.my_turn()
        assert person.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
        assert early.state()["status"] == "handed_back"  # the first page was never asked
        assert post(host, "/api/host/return", {"seat": 5})[0] == 200
        game.join(WAIT_S * 4)
        assert not game.is_alive() and game.path is not None
    finally:
        web.stop()
    transcript = read_transcript(game.path)
    assert [(s, b, a) for s, _, b, a in switches(transcript)] == [
        (5, "baseline", "human"),
        (5, "human", "baseline"),
    ]
    assert switches(transcript)[0][1] == state["request_id"]


def early_url(client: Client) -> str:
    return f"http://127.0.0.1:{client.port}/?t={client.token}"


def test_hand_back_and_take_again_while_the_question_is_open(tmp_path: Path) -> None:
    """The host hands a seat back and takes it again before the game's loop turns:
    the new person's page gets the same open question (the old page is released);
    the panel used to hand back the old, released page and let the AI play."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        old = Client.of_url(str(post(host, "/api/host/take", {"seat": 4})[1]["url"]))
        assert post(host, "/api/host/start", {})[0] == 200
        asked = old.my_turn()
        panel = web.panel()

        def both() -> str:
            panel.hand_back(4)
            return panel.take(4)

        new_url = on_game_loop(web, both)
        assert new_url != early_url(old)
        new = Client.of_url(new_url)
        old.wait_for(lambda s: s["status"] == "handed_back")
        again = new.my_turn()
        assert again["request_id"] == asked["request_id"]  # the same open question
        answer = first_legal(again["form_html"])
        assert new.answer(again["request_id"], answer)[0] == 200
        status, text = old.request(
            "POST", "/api/answer", {"request": asked["request_id"], "answer": answer}
        )
        assert status == 409 and "no longer open" in one_line_error(text)
        assert post(host, "/api/host/return", {"seat": 4})[0] == 200
        game.join(WAIT_S * 4)
        assert not game.is_alive() and game.path is not None
    finally:
        web.stop()
    transcript = read_transcript(game.path)
    moves = switches(transcript)
    assert [(s, b, a) for s, _, b, a in moves] == [
        (4, "baseline", "human"),
        (4, "human", "human"),  # the second person, from the same question on
        (4, "human", "baseline"),
    ]
    assert moves[1][1] == asked["request_id"]
    made = decisions_of(transcript, 4)[asked["request_id"]]
    assert not made.fallback and holds(made, answer)


def test_take_over_and_hand_back_in_sealed_decisions(tmp_path: Path) -> None:
    """A killer's AI is thinking over the night's sealed kill opinion when the host
    takes the seat: the person gets that very question (the AI's wait is cut short;
    it used to be waited out), and the team's sealed opinions hold the person's
    answer. At the next sealed ballot, handed back while the person's question is
    open: the AI answers it. Each decision is attributed to whoever made it."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        live = web._game
        assert live is not None
        killer = min(s for s, role in live.roles().items() if role == "killer")
        web.panel().seats[killer].pace_s = 3600.0  # this seat's AI thinks "for an hour"
        assert post(host, "/api/host/start", {})[0] == 200

        def sealed() -> str | None:
            mine = (r for r in live.pending() if r.seat == killer)
            return next((r.id for r in mine if r.decision == "kill_opinion"), None)  # KG-3

        until(lambda: sealed() is not None, "the night's kill opinion was never asked")
        night = sealed()
        person = Client.of_url(str(post(host, "/api/host/take", {"seat": killer})[1]["url"]))
        asked = person.my_turn()
        assert asked["request_id"] == night
        web.panel().seats[killer].pace_s = 0.0  # the AI that gets the seat back answers at once
        opinion = first_legal(asked["form_html"])
        assert person.answer(night, opinion)[0] == 200
        ballot: str | None = None
        last = night
        while ballot is None:
            state = person.wait_for(
                lambda s, last=last: (
                    s["status"] == "ended"
                    or (s["status"] == "your_turn" and s["request_id"] != last)
                )
            )
            assert state["status"] != "ended", "the killer's seat never cast a ballot"
            last = state["request_id"]
            if any(r.id == last and r.decision == "vote" for r in live.pending()):
                ballot = last
            else:
                assert person.answer(last, first_legal(state["form_html"]))[0] == 200
        assert post(host, "/api/host/return", {"seat": killer})[0] == 200
        person.wait_for(lambda s: s["status"] == "handed_back")
        game.join(WAIT_S * 4)
        assert not game.is_alive() and game.path is not None
    finally:
        web.stop()
    transcript = read_transcript(game.path)
    moves = switches(transcript)
    assert moves == [(killer, night, "baseline", "human"), (killer, ballot, "human", "baseline")]
    made = decisions_of(transcript, killer)
    assert holds(made[night], opinion) and not made[night].fallback
    assert not made[ballot].fallback  # the AI answered the open ballot
    first_night = next(
        e.to_json()["data"]
        for e in transcript.events
        if e.kind == "killer.opinions" and e.to_json()["data"]["role"] == "killer"
    )
    assert first_night["opinions"][str(killer)] == opinion["target"]  # KG-3: the person's


def test_a_persons_answer_and_the_hand_back_at_the_same_moment(tmp_path: Path) -> None:
    """Three times: the person's answer and the host's hand-back are sent at once.
    Exactly one wins: either the person's answer is recorded (and the AI plays from
    the seat's next decision), or the page is told in one line that the question
    is no longer open and the AI answered it. (This held on main already.)"""
    web = WebRun(host_panel=True, announce=quiet)
    raced: list[tuple[str, int, dict[str, object]]] = []
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        for round_ in range(3):
            status, reply = post(host, "/api/host/take", {"seat": 6})
            if status != 200:
                break
            if round_ == 0:  # taken before the start: seat 6's first question is the person's
                assert post(host, "/api/host/start", {})[0] == 200
            person = Client.of_url(str(reply["url"]))
            state = person.wait_for(lambda s: s["status"] in ("your_turn", "ended") or s["out"])
            if state["status"] != "your_turn":
                break  # the game is over, or seat 6 is out of it
            answer = first_legal(state["form_html"])
            body = {"request": state["request_id"], "answer": answer}
            (said, text), (returned, _) = at_once(
                lambda person=person, body=body: person.request("POST", "/api/answer", body),
                lambda: host.request("POST", "/api/host/return", {"seat": 6}),
            )
            assert returned == 200
            assert said in (200, 409), text
            if said == 409:
                assert "no longer open" in one_line_error(text)
            raced.append((state["request_id"], said, answer))
        game.join(WAIT_S * 4)
        assert not game.is_alive() and game.path is not None
    finally:
        web.stop()
    assert raced, "seat 6 was never asked"
    transcript = read_transcript(game.path)
    moves = switches(transcript)
    made = decisions_of(transcript, 6)
    for request_id, said, answer in raced:
        back = [m for m in moves if m[2] == "human" and m[3] == "baseline" and m[1] == request_id]
        if said == 200:  # the person's answer stands; the AI starts after it
            assert holds(made[request_id], answer)
            assert not back
        else:  # the AI answered the question the person lost
            assert len(back) == 1 and not made[request_id].fallback


# ---------------------------------------------------------------- spectators


class Readers:
    """Spectator sockets that read everything, in threads; bytes counted."""

    def __init__(self, urls: list[str]) -> None:
        self.received: list[int] = [0] * len(urls)
        self.last: list[dict[str, Any]] = [{} for _ in urls]
        self.threads = [
            threading.Thread(target=self._read, args=(i, url), daemon=True)
            for i, url in enumerate(urls)
        ]
        self.opened = threading.Semaphore(0)
        for thread in self.threads:
            thread.start()

    def _read(self, i: int, url: str) -> None:
        with ws_client.connect(ws_of(url), open_timeout=WAIT_S, max_size=None) as socket_:
            self.opened.release()
            try:
                while True:
                    text = str(socket_.recv(timeout=WAIT_S * 4))
                    self.received[i] += len(text)
                    state = json.loads(text)
                    self.last[i] = state
                    if state.get("status") == "ended":
                        return
            except (ConnectionClosed, TimeoutError):
                return


def ws_of(url: str) -> str:
    return url.replace("http://", "ws://").replace("/?t=", "/ws?t=")


def stalled_socket(url: str) -> socket.socket:
    """A WebSocket that completes its handshake and then never reads a byte (its
    receive buffer kept small, so the server meets the back-pressure at once)."""
    port = int(url.split(":")[2].split("/")[0])
    token = url.split("t=")[1]
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", port))
    raw.sendall(
        (
            f"GET /ws?t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: c3RhbGxlZC1zb2NrZXQtMQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    raw.settimeout(WAIT_S)
    assert raw.recv(12).startswith(b"HTTP/1.1 101")
    return raw


def flood(url: str, outcome: dict[str, Any]) -> None:
    """Send frames as fast as the server takes them; note how it answers."""
    with ws_client.connect(ws_of(url), open_timeout=WAIT_S, max_size=None) as flooder:
        seen: list[str] = []
        stop = threading.Event()

        def listen() -> None:
            try:
                while True:
                    seen.append(str(flooder.recv(timeout=WAIT_S)))
            except (ConnectionClosed, TimeoutError):
                stop.set()

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        sent = 0
        try:
            while not stop.is_set() and sent < 200_000:
                flooder.send("x" * 64)
                sent += 1
        except ConnectionClosed:
            pass
        listener.join(WAIT_S)
        outcome.update(sent=sent, seen=seen, code=flooder.close_code)


def rss_kb() -> int:
    """This process's resident memory (the server runs in it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def plain_events(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    record = play_game(parse_config(all_ai_killer()), 7, tmp_path / "plain")
    assert record.path is not None
    transcript = read_transcript(record.path)
    return [e.to_json() for e in transcript.events], transcript.outcome


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for memory")
def test_fifty_spectators_a_stalled_one_and_a_flooder_change_nothing(tmp_path: Path) -> None:
    """The same seeded game with no web at all and with 50 spectator sockets on the
    referee's page and seat 4's: 48 that read, one that never reads (back-pressure:
    the server holds one state for it, never a queue, and the game does not wait)
    and one that floods (refused in one JSON line and closed with 1008). The events
    and the outcome are identical and every reader ends on the end screen."""
    events, outcome = plain_events(tmp_path)
    # a short pace before each AI answer: the server pushes states all game long
    web = WebRun(host_panel=True, pace_s=0.01, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        referee = str(post(host, "/api/host/watch", {"target": "referee"})[1]["url"])
        seat4 = str(post(host, "/api/host/watch", {"target": "4"})[1]["url"])
        readers = Readers([referee if i % 2 else seat4 for i in range(48)])
        for _ in range(48):
            assert readers.opened.acquire(timeout=WAIT_S)
        stalled = stalled_socket(referee)
        flooded: dict[str, Any] = {}
        flooder = threading.Thread(target=flood, args=(referee, flooded), daemon=True)
        assert post(host, "/api/host/start", {})[0] == 200
        flooder.start()  # while the game plays
        game.join(WAIT_S * 8)
        assert not game.is_alive(), "the game stalled"
        for thread in readers.threads:
            thread.join(WAIT_S)
        flooder.join(WAIT_S)
        stalled.close()
    finally:
        web.stop()
    assert game.path is not None
    transcript = read_transcript(game.path)
    assert [e.to_json() for e in transcript.events] == events
    assert transcript.outcome is not None and outcome is not None
    assert transcript.outcome["results"] == outcome["results"]
    assert all(state.get("status") == "ended" for state in readers.last)
    # the flooder: refused in one line of JSON, then closed as a policy violation
    assert flooded["code"] == 1008, flooded["code"]
    assert one_line_error(flooded["seen"][-1]) == FLOOD_REFUSAL


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc for memory")
def test_a_socket_that_never_reads_holds_one_state_not_a_queue() -> None:
    """200 states of 256 KB each (50 MB in all) pushed while one socket never
    reads: the server keeps at most the state in flight for it (the page is sent
    the latest state when it reads again, never a backlog), so its memory grows by
    a small fraction of 50 MB, and a page that reads still ends on the last state.
    (This held on main already: one send at a time per socket, latest state only.)"""
    hub = WebHub()
    try:
        watch = hub.add(Audience("watch", Board(status="watching"), "watching"))
        stalled = stalled_socket(hub.url(watch))
        reader = Readers([hub.url(watch)])
        assert reader.opened.acquire(timeout=WAIT_S)
        before = rss_kb()
        for i in range(200):
            watch.board.update(view_html=f"{i:04d}" + "x" * (256 * 1024))
        watch.board.update(status="ended")
        reader.threads[0].join(WAIT_S)
        grown_kb = rss_kb() - before
        stalled.close()
    finally:
        hub.stop()
    assert reader.last[0]["view_html"].startswith("0199")  # the latest state arrived
    print(f"memory grown by {grown_kb} KB")
    assert grown_kb < 24 * 1024, grown_kb  # a queue would hold 50 MB


def test_every_socket_refusal_is_one_json_line(tmp_path: Path) -> None:
    """A socket with a wrong token, or a page's token on a remote program's route,
    is refused before it opens with the same one-line JSON error as every other
    refusal (it used to be a bare 403)."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        host = host_client(web)
        port = web.hub().port
        for path in ("/ws?t=nope", "/agent?t=nope", f"/agent?t={host.token}"):
            with pytest.raises(InvalidStatus) as refused:
                ws_client.connect(f"ws://127.0.0.1:{port}{path}", open_timeout=WAIT_S)
            response = refused.value.response
            assert response.status_code == 403, path
            assert one_line_error(response.body.decode()), path
    finally:
        web.stop()
