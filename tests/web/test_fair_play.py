"""Fair play (issue 38 item 1): once a person takes a seat, no spectator stream
that could help them — the referee's view, another seat's view, the host's
terminal — shows more than every seat is told, whoever opened it and when;
the whole game again once it is over."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import websockets.sync.client as ws_client
from rich.console import Console

from sandbox.cli.display import Display
from sandbox.session.play import LiveHooks
from sandbox.transcript import read_transcript
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.web.helpers import (
    WAIT_S,
    Client,
    Gate,
    PanelGame,
    host_client,
    panel_table,
    play_out,
    post,
    quiet,
)

SEQ = re.compile(r'data-seq="(\d+)"')


def shown(state: dict[str, Any]) -> set[int]:
    return {int(seq) for seq in SEQ.findall(state["view_html"])}


def playing(state: dict[str, Any]) -> bool:
    """A state pushed while the game was still on (the last event is its end)."""
    return state["status"] != "ended" and "The game ends" not in state["view_html"]


def private_seqs(path: Path) -> set[int]:
    """The events of the game not told to every seat (by the transcript)."""
    events = read_transcript(path).events
    return {seq for seq, event in enumerate(events) if event.visibility().scope != "public"}


class Recorder(threading.Thread):
    """Reads a page's state over HTTP until the game ends, keeping every one."""

    def __init__(self, page: Client, game: threading.Thread) -> None:
        super().__init__(daemon=True)
        self.page, self.game = page, game
        self.states: list[dict[str, Any]] = []

    def run(self) -> None:
        while self.game.is_alive():
            self.states.append(self.page.state())
            time.sleep(0.005)


def watch(host: Client, target: str) -> Client:
    status, reply = post(host, "/api/host/watch", {"target": target})
    assert status == 200, reply
    return Client.of_url(str(reply["url"]))


def take(host: Client, seat: int) -> Client:
    status, reply = post(host, "/api/host/take", {"seat": seat})
    assert status == 200, reply
    return Client.of_url(str(reply["url"]))


def test_a_referee_page_opened_before_a_take_over_narrows_at_once(tmp_path: Path) -> None:
    with panel_table(tmp_path) as (web, game, host):
        referee = watch(host, "referee")
        url = f"ws://127.0.0.1:{web.hub().port}/ws?t={referee.token}"
        with ws_client.connect(url, open_timeout=5) as socket_:
            assert "narrowed" not in json.loads(socket_.recv(timeout=5))["view_html"]
            person = take(host, 4)
            # the page's open socket is told at once, before the game moves on
            pushed = json.loads(socket_.recv(timeout=5))
            assert 'class="narrowed"' in pushed["view_html"]
            assert "narrowed" in referee.state()["view_html"]  # a reload too
            assert post(host, "/api/host/watch", {"target": "referee"})[0] == 400
            recorder = Recorder(referee, game)
            recorder.start()
            post(host, "/api/host/start", {})
            play_out(person, game)
            game.join(WAIT_S)
            recorder.join(WAIT_S)
            frames = []
            while True:  # every state the socket was pushed while the person played
                try:
                    frames.append(json.loads(socket_.recv(timeout=0.5)))
                except TimeoutError:
                    break
        assert game.path is not None
        secret = private_seqs(game.path)
        during = [s for s in recorder.states + frames if playing(s)]
        assert len(during) > 5 and secret
        for state in during:
            assert 'class="narrowed"' in state["view_html"]
            assert not shown(state) & secret, "a private event reached the referee page"
        assert any(shown(s) for s in during)  # the public events did follow
        end = referee.wait_for(lambda s: s["status"] == "ended")
        assert shown(end) & secret  # the game is over: the whole game again
        assert "narrowed" not in end["view_html"]


def test_seat_pages_opened_during_and_after_a_take_over(tmp_path: Path) -> None:
    """Opened while the person plays seat 4: seat 6's page is narrowed, seat 4's
    own page is whole; after the hand-back the game stays narrowed (the person
    could be handed the seat again) and a referee link stays refused."""
    gate = Gate()
    with panel_table(tmp_path, LiveHooks(on_event=gate.on_event)) as (_web, game, host):
        person = take(host, 4)
        other, own = watch(host, "6"), watch(host, "4")
        post(host, "/api/host/start", {})
        state = person.my_turn()
        assert "narrowed" in other.state()["view_html"]
        own_state = own.wait_for(lambda s: "Seat 4" in s["view_html"])
        assert "narrowed" not in own_state["view_html"]  # the person's own seat: whole
        # Hold the game at its next event, so what follows is asked of a game still
        # being played (bots alone could otherwise end it before the next request).
        gate.close()
        assert post(host, "/api/host/return", {"seat": 4})[0] == 200
        after = watch(host, "6")
        assert post(host, "/api/host/watch", {"target": "referee"})[0] == 400
        assert game.is_alive()
        recorders = [Recorder(page, game) for page in (other, after)]
        for recorder in recorders:
            recorder.start()
        # Each page is read at least once while the game is held, then it plays on.
        deadline = time.monotonic() + WAIT_S
        while not all(r.states for r in recorders) and time.monotonic() < deadline:
            time.sleep(0.01)
        gate.release()
        assert state["request_id"]
        game.join(30)
        assert not game.is_alive() and game.path is not None
        for recorder in recorders:
            recorder.join(WAIT_S)
        secret = private_seqs(game.path)
        for recorder in recorders:
            during = [s for s in recorder.states if playing(s)]
            assert during
            for seen in during:
                assert "narrowed" in seen["view_html"] and not shown(seen) & secret
            end = recorder.page.wait_for(lambda s: s["status"] == "ended")
            assert "narrowed" not in end["view_html"]


def test_several_people_seated_narrow_each_others_seat_pages(tmp_path: Path) -> None:
    with panel_table(tmp_path) as (_web, game, host):
        four, six = watch(host, "4"), watch(host, "6")
        first = take(host, 4)
        assert "narrowed" in six.state()["view_html"]  # seat 4's person could be helped
        assert "narrowed" not in four.state()["view_html"]  # only seat 4's own person sits
        second = take(host, 6)
        assert "narrowed" in four.state()["view_html"]  # now seat 6's person could be
        assert "narrowed" in six.state()["view_html"]
        post(host, "/api/host/start", {})
        people = [threading.Thread(target=play_out, args=(p, game)) for p in (first, second)]
        for runner in people:
            runner.start()
        recorders = [Recorder(page, game) for page in (four, six)]
        for recorder in recorders:
            recorder.start()
        game.join(60)
        assert not game.is_alive() and game.path is not None
        secret = private_seqs(game.path)
        for recorder in recorders:
            recorder.join(WAIT_S)
            for seen in recorder.states:
                if playing(seen):
                    assert "narrowed" in seen["view_html"] and not shown(seen) & secret


def test_a_page_rendered_just_before_a_take_over_is_withheld(web: WebRun) -> None:
    """The race: the game's loop renders the whole referee view, then the host's
    thread seats a person before the narrowed render. The server checks the page
    against the table at every push and load, so the whole view rendered a
    moment earlier is never sent after the take-over."""
    referee = Client.of_url(web.spectate("referee"))
    board = web._spectators[0].audience.board
    board.update(view_html="<p>the whole view</p>", scope="full")  # nobody sits yet
    assert referee.state()["view_html"] == "<p>the whole view</p>"
    url = f"ws://127.0.0.1:{web.hub().port}/ws?t={referee.token}"
    with ws_client.connect(url, open_timeout=5) as socket_:
        assert "whole view" in json.loads(socket_.recv(timeout=5))["view_html"]
        web._seats = {4: HumanBrowserAgent(4, web.hub())}  # a person takes seat 4
        web.seating_changed()
        pushed = json.loads(socket_.recv(timeout=5))
        assert pushed["withheld"] and "whole view" not in pushed["view_html"]
        assert 'class="narrowed"' in pushed["view_html"]
    withheld = referee.state()
    assert withheld["withheld"] and "whole view" not in withheld["view_html"]
    status, page = referee.request("GET", "/")
    assert status == 200 and "whole view" not in page


def host_terminal(out: Path, person_at: int | None) -> tuple[str, Path]:
    """What `sandbox run --host-panel` prints in the terminal (the referee's stream,
    wired as play.py wires it) for a game where ``person_at`` is handed to a
    person (answering its first options) or nobody; and the transcript."""
    console = Console(record=True, width=400, highlight=False, color_system=None)
    display = Display(console, console, None, live=True)
    web = WebRun(host_panel=True, announce=quiet)
    display.narrowed = web.narrowed
    try:
        game = PanelGame(web, out, inner=display.hooks("killer"))
        game.start()
        host = host_client(web)
        game.ready(host)
        person = take(host, person_at) if person_at is not None else None
        post(host, "/api/host/start", {})
        if person is not None:
            play_out(person, game)
        game.join(30)
        assert game.path is not None
    finally:
        web.stop()
    return console.export_text(), game.path


def test_the_host_terminal_narrows_while_the_host_plays(tmp_path: Path) -> None:
    """`sandbox run --host-panel` prints the referee's stream in the terminal;
    once a seat is handed to a person only what every seat is told is printed."""
    printed, path = host_terminal(tmp_path, 4)
    assert "A person plays at this table" in printed
    leaked = printed_seqs(printed) & private_seqs(path)
    assert not leaked, f"private events printed in the host's terminal: {sorted(leaked)}"
    assert printed_seqs(printed)  # the public events were printed


def test_the_terminal_shows_the_referee_view_when_nobody_plays(tmp_path: Path) -> None:
    """The other side of the test above: without a person the whole game is printed."""
    printed, path = host_terminal(tmp_path, None)
    assert "A person plays" not in printed
    assert printed_seqs(printed) & private_seqs(path)


def printed_seqs(printed: str) -> set[int]:
    """The events the terminal printed, by the ``#seq`` tag of each line."""
    return {int(seq) for seq in re.findall(r"^#(\d+) ", printed, re.MULTILINE)}
