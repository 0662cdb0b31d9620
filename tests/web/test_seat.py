"""The browser seat in real games: the form, refusals, leaving, time limits,
the history in words, the end screen."""

from __future__ import annotations

import asyncio
import re
import tomllib
from pathlib import Path

import pytest

from sandbox.agents.human.terminal import HumanTerminalAgent
from sandbox.agents.simple import RandomAgent
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.core.seat import FALLBACK_QUIT, FALLBACK_TIMEOUT, Agent, DecisionContext
from sandbox.session.gamefile import parse_config
from sandbox.session.seating import build_agents
from sandbox.transcript import read_transcript
from sandbox.web.form import render_form
from sandbox.web.pages import render_view
from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.core.toy import Toy, ToyConfig
from tests.web.helpers import (
    Client,
    GameThread,
    SessionThread,
    SpeechReader,
    play_out,
    quiet,
    read_form,
)

ROOT = Path(__file__).resolve().parents[2]


def toy_game(seat2: Agent, others: dict[int, Agent] | None = None) -> GameThread:
    agents = others or {1: RandomAgent(11), 3: RandomAgent(13)}
    return GameThread(Game.new(Toy(), ToyConfig(), 4), {**agents, 2: seat2})


def decisions_of(game: Game, seat: int) -> list[DecisionMade]:
    return [e for e in game.events if isinstance(e, DecisionMade) and e.seat == seat]


def killer_file(**human: object) -> dict[str, object]:
    return {
        "variant": "killer",
        "rules": {"players": 11},
        "default_agent": {"kind": "baseline"},
        "agent": [{"kind": "human", "seats": [3], "interface": "browser", "pace_s": 0, **human}],
    }


def test_form_offers_exactly_the_legal_options_and_refusals_ask_again(
    seat2: HumanBrowserAgent,
) -> None:
    thread = toy_game(seat2)
    thread.start()
    client = Client(seat2.hub, seat2.audience)
    state = client.my_turn()
    request = next(r for r in thread.game.pending() if r.seat == 2)
    assert state["request_id"] == request.id
    kind, options = read_form(state["form_html"]).fields["pick"]
    pick = request.field("pick")
    assert isinstance(pick, Choice)
    assert kind == "choice" and options == list(pick.legal())

    status, reply = client.answer(request.id, {"pick": 7})
    assert status == 422 and not reply["ok"]
    # in words, the rule ID beside it, never the model's "Legal options — pick: [...]"
    assert reply["error"] == "Seat 7 is not one of the choices for “pick” now. (rule T-1)"
    again = client.state()
    assert again["status"] == "your_turn" and again["request_id"] == request.id
    assert again["error"] == reply["error"]  # a reload shows the referee's message too
    assert client.answer("not-this-one", {"pick": 1})[0] == 409
    # the page's check before its confirmation: the referee's dry run, nothing recorded
    body = {"request": request.id, "answer": {}}
    status, text = client.request("POST", "/api/check", body)
    assert status == 422 and "Please answer “pick”" in text and "(rule T-1)" in text
    body["answer"] = {"pick": 3}
    assert client.request("POST", "/api/check", body)[0] == 200
    assert client.state()["request_id"] == request.id and not decisions_of(thread.game, 2)
    assert client.state()["error"] == ""  # the refusal no longer stands: a reload shows none
    assert client.request("POST", "/api/answer", "just a string")[0] == 400

    assert client.answer(request.id, {"pick": 2}) == (200, {"ok": True})
    play_out(client, thread)
    thread.finish()
    first = decisions_of(thread.game, 2)[0]
    assert first.request_id == request.id and dict(first.payload) == {"pick": 2}


def test_controls_name_seats_and_say_nobody() -> None:
    request = DecisionRequest(
        "r1", 2, "vote", "X-1", "Vote (null abstains).",
        (
            Choice("target", (1, 4, 9), "a seat, or null to abstain", nullable=True),
            Choice("many", tuple(range(1, 31)), "many"),
            MultiChoice("some", (4, 5, 6), "several", max_items=2),
            Text("speech", "say", max_chars=300),
        ),
    )  # fmt: skip
    markup = render_form(request, "en")
    form = read_form(markup)
    assert form.fields["target"] == ("choice", [1, 4, 9, None])
    assert form.words["target"] == ["Seat 1", "Seat 4", "Seat 9", "Nobody / abstain"]
    assert form.fields["many"][0] == "select" and form.fields["some"][0] == "multi"
    assert form.limits == {"speech": 300}
    shown = re.sub(r'value="[^"]*"', "", markup)  # values are JSON; people read the rest
    assert "null" not in shown and "(or nobody, to abstain)" in shown
    assert 'id="confirm"' in markup  # choices are confirmed before they are sent
    chinese = render_form(request, "zh")
    assert "9号" in chinese and "提交" in chinese


def test_history_speaks_in_sentences_and_own_answers_in_words(web: WebRun) -> None:
    loaded = parse_config(killer_file())
    game = Game.new(loaded.variant, loaded.game_config, 3)
    person = HumanBrowserAgent(3, web.hub())
    others: dict[int, Agent] = {s: RandomAgent(100 + s) for s in game.seats if s != 3}
    thread = GameThread(game, {**others, 3: person})
    thread.start()
    client = Client(web.hub(), person.audience)
    first = client.my_turn()["view_html"]
    play_out(client, thread)
    thread.finish()
    assert "Killer with 11 players" in first  # the referee's own sentence
    final = render_view(game.view(3), "en")  # what the page would show next
    for page in (first, final):
        assert "killer.phase" not in page and "payload" not in page and "fallback: no" not in page
    assert re.search(r"You vote (for seat \d+|to abstain|[a-z ]+)\.", final), final
    # the seat board, from seat 3's view only: itself marked, every seat's votes by day
    assert 'class="seat-board"' in final and "<td>Seat 3 (you)</td>" in final
    ballots = [e for e in game.events if e.kind == "killer.ballots"]
    assert ballots and re.search(r"<div>Day \d+: (seat \d+|nobody)</div>", final)
    shown = {int(s) for s in re.findall(r'data-seq="(\d+)"', final)}
    visible = {seq for seq, _ in game.visible_events(3)}
    assert shown and shown <= visible  # only its own view


def test_leave_gives_quit_fallbacks_for_every_later_decision(web: WebRun) -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    seat2 = HumanBrowserAgent(2, web.hub())
    thread = GameThread(game, {1: RandomAgent(1), 3: RandomAgent(3), 2: seat2})
    thread.start()
    client = Client(web.hub(), seat2.audience)
    state = client.my_turn()
    assert client.answer(state["request_id"], {"pick": 3})[0] == 200
    client.wait_for(lambda s: s["request_id"] != state["request_id"])
    assert client.request("POST", "/api/leave", {})[0] == 200
    thread.finish()
    mine = decisions_of(game, 2)
    assert not mine[0].fallback
    assert all(d.fallback_reason == FALLBACK_QUIT for d in mine[1:])


def test_a_time_limit_falls_back_with_reason_timeout(web: WebRun) -> None:
    seat2 = HumanBrowserAgent(2, web.hub(), decision_timeout_s=0.3)
    game = Game.new(Toy(), ToyConfig(), 4)
    request = next(r for r in game.pending() if r.seat == 2)
    client = Client(web.hub(), seat2.audience)

    async def ask() -> object:
        task = asyncio.ensure_future(seat2.decide(DecisionContext.for_request(game, request)))
        await asyncio.sleep(0.5)  # longer than the limit, but no page has shown the question
        assert not task.done()
        first = await asyncio.to_thread(client.state)  # a page shows it: the clock starts
        assert first["remaining_s"] is None and first["status"] == "your_turn"
        shown = await asyncio.to_thread(client.state)
        assert 0 < shown["remaining_s"] <= 0.3  # the page's countdown
        return await task

    answer = asyncio.run(ask())
    assert getattr(answer, "fallback_reason", None) == FALLBACK_TIMEOUT
    assert client.state()["remaining_s"] is None
    # the page says so (issue 38 item 4) and reads the draft kept under this key again
    state = client.state()
    assert state["notice"] == "Time ran out: the referee passed for you."
    assert state["unsent"] == f":2:{request.id}"
    assert state["status"] == "waiting" and state["request_id"] is None and not state["form_html"]


def test_game_file_time_limit_is_recorded_as_timeout(web: WebRun, tmp_path: Path) -> None:
    loaded = parse_config(killer_file(decision_timeout_s=0.2))
    record = SessionThread(loaded, 5, tmp_path, web)
    record.start()
    client = Client(web.hub(), wait_for_seat(web, 3))
    while record.is_alive():  # an open page: each question it shows starts its clock
        client.state()
        record.join(0.05)
    done = record.finish(60)
    assert set(done.stats.fallbacks[3]) == {FALLBACK_TIMEOUT}
    header = read_transcript(done.path).header
    assert header["agents"]["3"]["decision_timeout_s"] == 0.2


def test_end_screen_is_a_results_panel_over_the_final_view(web: WebRun, tmp_path: Path) -> None:
    raw = tomllib.loads((ROOT / "configs" / "killer_human_browser.toml").read_text())
    raw["agent"][0]["port"] = 0  # 8765 may be taken on a shared machine
    raw["agent"][0]["pace_s"] = 0  # tests go at full speed
    loaded = parse_config(raw)
    thread = SessionThread(loaded, 5, tmp_path, web)
    thread.start()
    client = Client(web.hub(), wait_for_seat(web, 3))
    play_out(client, thread)
    record = thread.finish()
    end = client.wait_for(lambda s: s["status"] == "ended")
    assert record.outcome is not None and record.outcome.summary in end["end_html"]
    results = {"win": "won", "lose": "lost", "draw": "draw"}
    for seat, role in record.roles.items():
        result = results[record.outcome.results[seat]]
        mine = " (you)" if seat == 3 else ""
        assert (
            f'data-seat="{seat}"><td>Seat {seat}{mine}</td><td>{role}</td><td>{result}</td>'
            in end["end_html"]
        )
    groups: dict[str, list[str]] = {}  # the winners by revealed role, in seat order
    for seat, result in sorted(record.outcome.results.items()):
        if result == "win":
            groups.setdefault(record.roles[seat], []).append(str(seat))
    said = "; ".join(f"Seats {', '.join(s)} ({role})" for role, s in groups.items())
    assert f"Winners: {said}" in end["end_html"]
    own = {"win": "You won", "lose": "You lost", "draw": "A draw for you"}
    assert f"{own[record.outcome.results[3]]} (you were {record.roles[3]})." in end["end_html"]
    # issue 38 item 6: the story at the end under the results, night by night
    assert 'class="recap"' in end["end_html"] and "Night 1</summary>" in end["end_html"]
    # the view under it is the final one: no stale card or "Now", the history once
    view = end["view_html"]
    assert 'class="card"' not in view and 'class="now"' not in view
    assert "The game ends" in view and 'id="whole-game"' not in end["end_html"]
    assert end["form_html"] == "" and end["out"] == ""
    transcript = record.path.read_text()
    assert web._seat_pages[3].token not in transcript  # the seat's key never reaches the file
    # "Leave" confirmed only after the end: the end screen stays, not "You left the game"
    assert client.request("POST", "/api/leave", {})[0] == 200
    assert client.state()["status"] == "ended"


def test_the_pace_waits_after_each_event_the_persons_page_shows(tmp_path: Path) -> None:
    slept: list[float] = []
    web = WebRun(announce=quiet, sleep=slept.append)
    try:
        thread = SessionThread(parse_config(killer_file(pace_s=0.25)), 5, tmp_path, web)
        thread.start()
        client = Client(web.hub(), wait_for_seat(web, 3))
        play_out(client, thread)
        record = thread.finish()
    finally:
        web.stop()
    # by hand from the transcript: after the first decision, every event seat 3
    # may see except the engine's own (decisions, steps, the ending) waits once
    playing, expected = False, 0
    for event in read_transcript(record.path).events:
        playing = playing or event.kind == "core.decision"
        if playing and not event.kind.startswith("core.") and event.visibility().visible_to(3):
            expected += 1
    assert expected > 20 and slept == [0.25] * expected
    assert read_transcript(record.path).header["agents"]["3"]["pace_s"] == 0.25


def wait_for_seat(web: WebRun, seat: int) -> str:
    import time

    deadline = time.monotonic() + 10
    while seat not in web._seat_pages:
        assert time.monotonic() < deadline, "the seat page never appeared"
        time.sleep(0.01)
    return web._seat_pages[seat].token


def test_config_dispatch_and_one_address_per_series(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = WebRun()
    try:

        def seated(interface: str) -> object:
            loaded = parse_config(
                {
                    "variant": "killer",
                    "rules": {"players": 11},
                    "agent": [{"kind": "human", "seats": [3], "interface": interface}],
                }
            )
            return build_agents(loaded, {3: "civilian"}, 1, host=run)[3]

        terminal = seated("terminal")
        assert isinstance(terminal, HumanTerminalAgent)
        first = seated("browser")
        second = seated("browser")  # the next game of a series
        assert isinstance(first, HumanBrowserAgent) and isinstance(second, HumanBrowserAgent)
        out = capsys.readouterr()
        assert out.out == ""  # stdout stays clean for --json
        assert out.err.splitlines() == [f"seat 3: open {first.url}"]
        assert second.url == first.url
    finally:
        run.stop()


def test_hostile_speech_is_text_under_its_speaker(web: WebRun) -> None:
    from sandbox.agents.simple import ScriptedAgent

    hostile = "<script>alert('seat')</script> & \"quoted\" <b>bold</b>"
    seat2 = HumanBrowserAgent(2, web.hub())
    others: dict[int, Agent] = {
        1: ScriptedAgent([{"pick": 1}, {"speech": hostile}], "random", 1),
        3: ScriptedAgent([{"pick": 3}], "random", 3),
    }
    thread = toy_game(seat2, others)
    thread.start()
    client = Client(web.hub(), seat2.audience)
    first = client.my_turn()
    client.answer(first["request_id"], {"pick": 2})
    second = client.my_turn(other_than=first["request_id"])
    for text in (second["view_html"], client.request("GET", "/")[1]):
        assert "<script>alert" not in text and "<b>bold" not in text
        assert SpeechReader.read(text) == [("Seat 1 says", hostile)]
    seat2.leave()
    thread.finish()


def test_chinese_page_and_rules_in_the_seats_language(web: WebRun, tmp_path: Path) -> None:
    loaded = parse_config(killer_file(language="zh"))
    thread = SessionThread(loaded, 5, tmp_path, web)
    thread.start()
    client = Client(web.hub(), wait_for_seat(web, 3))
    state = client.my_turn()
    page = client.request("GET", "/")[1]
    assert '<html lang="zh">' in page and "离开游戏" in page
    assert "3号" in state["title"] and "提交" in state["form_html"]
    assert state["rules"] == loaded.variant.rules_text(loaded.game_config, "zh")
    assert state["rules"] != loaded.variant.rules_text(loaded.game_config, "en")
    client.request("POST", "/api/leave", {})
    thread.finish()


def test_pace_defaults_to_reading_speed_and_is_a_browser_setting() -> None:
    from sandbox.session.agent_specs import HumanSpec
    from sandbox.session.gamefile import config_warnings

    raw = killer_file()
    del raw["agent"][0]["pace_s"]  # type: ignore[index]
    spec = parse_config(raw).file.agent[0]
    assert isinstance(spec, HumanSpec) and spec.pace_s == 1.5
    terminal = parse_config(
        {"variant": "killer", "agent": [{"kind": "human", "seats": [3], "pace_s": 2}]}
    )
    assert config_warnings(terminal.file) == ["agent[1]: 'pace_s' is ignored by a human seat"]
