"""The host panel: hand an AI seat to a person mid-game and back, spectators;
every switch is a control line in the transcript."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

from sandbox.core.events import DecisionMade
from sandbox.session import LiveHooks, play_game
from sandbox.session.gamefile import parse_config
from sandbox.transcript import Transcript, read_transcript
from sandbox.web.run import WebRun
from tests.web.helpers import (
    Client,
    Gate,
    PanelGame,
    all_ai_killer,
    first_legal,
    host_client,
    panel_table,
    post,
    quiet,
)


def test_take_over_and_hand_back_mid_game(tmp_path: Path) -> None:
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        rows = game.ready(host)
        assert [r["seat"] for r in rows] == list(range(1, 12))
        assert all(r["controller"] == "baseline" and r["can_take"] for r in rows)
        assert "role" not in json.dumps(rows)  # the panel lists controllers, never roles

        status, reply = post(host, "/api/host/take", {"seat": 4})
        assert status == 200
        person = Client.of_url(str(reply["url"]))
        assert post(host, "/api/host/watch", {"target": "referee"})[0] == 400  # a person plays
        status, watch = post(host, "/api/host/watch", {"target": "6"})
        spectator = Client.of_url(str(watch["url"]))
        before = spectator.state()["version"]
        assert post(host, "/api/host/start", {})[0] == 200

        answered = []
        for _ in range(2):
            state = person.my_turn(other_than=answered[-1] if answered else None)
            answered.append(state["request_id"])
            seen = {int(s) for s in re.findall(r'data-seq="(\d+)"', state["view_html"])}
            assert "seat 4" in state["view_html"].lower()
            assert person.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
        assert seen  # the person saw the seat's history so far
        waiting = person.my_turn(other_than=answered[-1])  # a question left open...
        assert post(host, "/api/host/return", {"seat": 4})[0] == 200  # ...goes to the AI
        person.wait_for(lambda s: s["status"] == "handed_back")
        game.join(30)
        assert not game.is_alive() and game.path is not None
        assert spectator.state()["version"] > before  # the spectator page followed the game
    finally:
        web.stop()

    transcript = read_transcript(game.path)
    controls = transcript.controls
    assert [(c["seat"], c["from"]["kind"], c["to"]["kind"]) for c in controls] == [
        (4, "baseline", "human"),
        (4, "human", "baseline"),
    ]
    mine = [e for e in transcript.events if isinstance(e, DecisionMade) and e.seat == 4]
    by_person = [d for d in mine if controls[0]["seq"] <= _seq(transcript, d) < controls[1]["seq"]]
    assert [d.request_id for d in by_person] == answered  # exactly the person's answers
    assert controls[1]["request_id"] == waiting["request_id"]  # the open one went to the AI
    assert transcript.finished


def _seq(transcript: Transcript, event: DecisionMade) -> int:
    return transcript.events.index(event)


def test_referee_spectators_when_nobody_plays_and_bad_requests(tmp_path: Path) -> None:
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, tmp_path)
        game.start()
        host = host_client(web)
        game.ready(host)
        status, reply = post(host, "/api/host/watch", {"target": "referee"})
        assert status == 200
        referee = Client.of_url(str(reply["url"]))
        assert post(host, "/api/host/take", {"seat": 99})[0] == 400
        assert post(host, "/api/host/take", {"seat": "4"})[0] == 400
        assert post(host, "/api/host/return", {"seat": 4})[0] == 400  # no person there
        assert post(host, "/api/host/watch", {"target": "x"})[0] == 400
        assert referee.request("POST", "/api/answer", {"request": "r", "answer": {}})[0] == 403
        post(host, "/api/host/start", {})
        game.join(30)
        end = referee.wait_for(lambda s: s["status"] == "ended")
        assert "killer" in end["end_html"] and "Killer with 11 players" in end["view_html"]
    finally:
        web.stop()


def test_a_configured_person_is_handed_to_the_bot(tmp_path: Path) -> None:
    web = WebRun(host_panel=True, announce=quiet)
    raw = {
        **all_ai_killer(),
        "agent": [{"kind": "human", "seats": [3], "interface": "browser"}],
    }
    result: list[Path] = []
    game = threading.Thread(
        target=lambda: result.append(
            play_game(parse_config(raw), 7, tmp_path, hooks=web.hooks(LiveHooks())).path
        ),
        daemon=True,
    )
    try:
        game.start()
        host = host_client(web)
        rows = host.wait_for(lambda s: s["status"] == "ready" and bool(s["seats"]))["seats"]
        assert rows[2]["controller"] == "human (browser)" and rows[2]["can_return"]
        assert post(host, "/api/host/return", {"seat": 3, "to": "nobody"})[0] == 400
        assert post(host, "/api/host/start", {})[0] == 200
        person = Client.of_url(str(rows[2]["url"]))
        person.my_turn()
        assert post(host, "/api/host/return", {"seat": 3})[0] == 200
        game.join(30)
        assert not game.is_alive()
    finally:
        web.stop()
    transcript = read_transcript(result[0])
    (control,) = transcript.controls
    assert (control["from"]["kind"], control["to"]["kind"]) == ("human", "baseline")
    mine = [e for e in transcript.events if isinstance(e, DecisionMade) and e.seat == 3]
    assert mine and not any(d.fallback for d in mine)  # the bot answered every one


def test_a_seat_spectator_is_told_the_seat_won_never_you(tmp_path: Path) -> None:
    """Issue 38 item 5: a spectator of seat 6 reads "Seat 6 won/lost (it was …)"."""
    with panel_table(tmp_path) as (_web, game, host):
        status, reply = post(host, "/api/host/watch", {"target": "6"})
        assert status == 200
        spectator = Client.of_url(str(reply["url"]))
        post(host, "/api/host/start", {})
        game.join(30)
        end = spectator.wait_for(lambda s: s["status"] == "ended")["end_html"]
    assert re.search(r"Seat 6 (won|lost) \(it was ", end), end
    assert "You won" not in end and "You lost" not in end and "(you)" not in end


def test_a_handed_back_page_keeps_following_as_the_seat_spectator(tmp_path: Path) -> None:
    """Issue 38 item 5: handed back, the person's page follows the seat to the end
    (the AI's moves included) and ends as a spectator's ("Seat 4 won/lost")."""
    gate = Gate()
    with panel_table(tmp_path, LiveHooks(on_event=gate.on_event)) as (_web, game, host):
        person = Client.of_url(str(post(host, "/api/host/take", {"seat": 4})[1]["url"]))
        post(host, "/api/host/start", {})
        state = person.my_turn()
        # Hold the game at its next event: bots alone could otherwise end it before
        # the page's first handed-back state is read, leaving nothing after it.
        gate.close()
        assert person.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
        assert post(host, "/api/host/return", {"seat": 4})[0] == 200
        released = person.wait_for(lambda s: s["status"] == "handed_back")
        gate.release()
        game.join(30)
        assert not game.is_alive()
        end = person.wait_for(lambda s: bool(s["end_html"]))
        assert end["status"] == "handed_back"  # the page still says whose seat it was
    seqs = {int(s) for s in re.findall(r'data-seq="(\d+)"', end["view_html"])}
    before = {int(s) for s in re.findall(r'data-seq="(\d+)"', released["view_html"])}
    assert max(seqs) > max(before)  # it went on following after the hand-back
    assert re.search(r"Seat 4 (won|lost) \(it was ", end["end_html"]), end["end_html"]
    assert "You won" not in end["end_html"] and "You lost" not in end["end_html"]
