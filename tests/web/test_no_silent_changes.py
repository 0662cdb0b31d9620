"""Nothing changes a person's answer silently (issue 38 item 4): softened words
are shown before the Confirm, a question whose time ran out says so on the page
and keeps what was typed, and every fallback reads in words in the seat's history.

Over HTTP, as a page speaks to the server; tests/web/test_browser_notices.py has
the same in a real browser."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.session.gamefile import parse_config
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.core.toy import Toy, ToyConfig
from tests.web.helpers import (
    Client,
    GameThread,
    SessionThread,
    first_legal,
    play_out,
    post,
    read_form,
)
from tests.web.test_seat import killer_file, wait_for_seat

LYNCH = "Lynch seat 3 tomorrow: that killer murdered seat 1."
SOFTENED = "Exile seat 3 tomorrow: that eliminator removed seat 1."


def speech_turn(client: Client, thread: GameThread) -> dict[str, Any]:
    """Answers the seat's questions with their first option until it is asked
    to speak; that question's state. Read from the seat's board, not its page:
    no page has shown the speech yet, so its clock has not started."""
    person = thread.agents[7]
    assert isinstance(person, HumanBrowserAgent)
    board = person.board
    last: str | None = None
    while thread.is_alive():
        state = board.snapshot()
        if state["status"] == "your_turn" and state["request_id"] != last:
            if "speech" in read_form(state["form_html"]).fields:
                return state
            last = state["request_id"]
            client.answer(last, first_legal(state["form_html"]))
        thread.join(0.01)
    raise AssertionError("the seat was never asked to speak")


def werewolf_table(
    web: WebRun, soften: bool, timeout_s: float | None = None
) -> tuple[Client, GameThread]:
    """An 8-seat Werewolf game, seat 7 a person's page, the rest random."""
    loaded = parse_config({"variant": "werewolf", "rules": {"soften_words": soften}})
    game = Game.new(loaded.variant, loaded.game_config, 3)
    person = HumanBrowserAgent(7, web.hub(), decision_timeout_s=timeout_s)
    others = {s: RandomAgent(100 + s) for s in game.seats if s != 7}
    thread = GameThread(game, {**others, 7: person})
    thread.start()
    return Client(web.hub(), person.audience), thread


def leave(client: Client, thread: GameThread) -> None:
    """The person leaves; the referee plays the seat's fallbacks to the end."""
    assert client.request("POST", "/api/leave", {})[0] == 200
    thread.finish()


def test_the_dry_run_says_how_softened_words_will_read(web: WebRun) -> None:
    client, thread = werewolf_table(web, soften=True)
    state = speech_turn(client, thread)
    answer = {**first_legal(state["form_html"]), "speech": LYNCH}
    status, checked = post(client, "/api/check", {"request": state["request_id"], "answer": answer})
    assert status == 200 and checked == {"ok": True, "shown": {"speech": SOFTENED}}
    harmless = {**answer, "speech": "Seat 3 was quiet all day."}
    asked = {"request": state["request_id"], "answer": harmless}
    status, checked = post(client, "/api/check", asked)
    assert status == 200 and checked == {"ok": True}  # nothing would change: nothing to show
    assert client.answer(state["request_id"], answer)[0] == 200
    game = thread.game
    client.wait_for(lambda s: s["request_id"] != state["request_id"])
    said = [e for e in game.events if e.kind.endswith("speech") and getattr(e, "seat", 0) == 7]
    assert said and said[-1].to_json()["data"]["shown"] == SOFTENED  # as the page said
    leave(client, thread)


def test_without_the_ruling_the_words_stay_and_nothing_is_shown(web: WebRun) -> None:
    client, thread = werewolf_table(web, soften=False)
    state = speech_turn(client, thread)
    answer = {**first_legal(state["form_html"]), "speech": LYNCH}
    status, checked = post(client, "/api/check", {"request": state["request_id"], "answer": answer})
    assert status == 200 and checked == {"ok": True}
    leave(client, thread)


def test_an_answer_clears_an_earlier_time_out(web: WebRun) -> None:
    seat2 = HumanBrowserAgent(2, web.hub())
    seat2.board.update(notice="Time ran out: the referee passed for you.", unsent=":2:r1")
    game = Game.new(Toy(), ToyConfig(), 4)
    thread = GameThread(game, {1: RandomAgent(1), 3: RandomAgent(3), 2: seat2})
    thread.start()
    client = Client(web.hub(), seat2.audience)
    state = client.my_turn()
    assert state["notice"]  # still shown while the next question is open
    assert client.answer(state["request_id"], first_legal(state["form_html"]))[0] == 200
    after = client.wait_for(lambda s: s["request_id"] != state["request_id"])
    assert after["notice"] == "" and after["unsent"] == ""
    play_out(client, thread)
    thread.finish()


def test_each_fallback_reads_in_words_in_the_history(web: WebRun, tmp_path: Path) -> None:
    record = SessionThread(parse_config(killer_file(decision_timeout_s=0.2)), 5, tmp_path, web)
    record.start()
    audience = wait_for_seat(web, 3)
    client = Client(web.hub(), audience)
    watcher = Client.of_url(web.spectate("3"))  # seat 3's own spectator: its full view
    while record.is_alive():  # an open page: each question it shows starts its clock
        client.state()
        record.join(0.05)
    record.finish(60)
    for page in (client, watcher):
        final = page.state()["view_html"]
        assert "(fallback: time ran out)" in final
        assert not re.search(r"fallback: \)", final)
