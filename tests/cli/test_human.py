"""The terminal human seat: scripted keystrokes, referee refusals, quitting,
and (when tmux is installed) a real terminal."""

from __future__ import annotations

import asyncio
import io
import re
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from sandbox.agents.human.terminal import BadInput, HumanTerminalAgent, options_text, parse_answer
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice, MultiChoice
from sandbox.core.seat import FALLBACK_QUIT, FALLBACK_TIMEOUT, DecisionContext
from sandbox.games.registry import get_variant
from tests.core.toy import Secret, Toy, ToyConfig

ROOT = Path(__file__).resolve().parents[2]


def seat_agent(keys: str) -> tuple[HumanTerminalAgent, io.StringIO]:
    screen = io.StringIO()
    console = Console(file=screen, width=200, color_system=None)
    return HumanTerminalAgent(2, io.StringIO(keys), console), screen


def context(game: Game, seat: int, refuse: object = None) -> DecisionContext:
    request = next(r for r in game.pending() if r.seat == seat)

    def validate(payload: object) -> dict[str, object]:
        # A stand-in rule so that a legal-looking answer can be refused.
        if payload == refuse:
            raise IllegalDecision("X-9", "You may not pick 1 this round.", {"pick": [2, 3]})
        return game.validate(request.id, payload)

    return replace(DecisionContext.for_request(game, request), validate=validate)


def test_bad_answer_is_explained_and_asked_again() -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    agent, screen = seat_agent("seven\n1\n3\n")
    answer = asyncio.run(agent.decide(context(game, 2, refuse={"pick": 1})))
    assert answer.payload == {"pick": 3}
    out = screen.getvalue()
    assert "'seven' is not one of the seats 1, 2, 3" in out
    assert "The referee refuses" in out and "(rule X-9)" in out
    assert out.count("Pick.") == 2  # the question came back after the refusal


def _screen_after_others_pick(pick: int, note: str) -> str:
    game = Game.new(Toy(), ToyConfig(), 4)
    for request in game.pending():
        if request.seat != 2:
            game.submit(request.id, {"pick": pick}, note=note)
    agent, screen = seat_agent("2\n")
    asyncio.run(agent.decide(context(game, 2)))
    return screen.getvalue()


def test_seat_sees_only_its_own_view() -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    lucky = {e.seat: e.lucky for e in game.events if isinstance(e, Secret)}
    shown = _screen_after_others_pick(3, "private note A")
    assert f"lucky: {lucky[2]}" in shown
    assert "private note" not in shown
    # Whatever the others secretly chose, seat 2's screen is the same.
    assert shown == _screen_after_others_pick(1, "private note B")


def test_quit_gives_recorded_fallbacks_from_then_on() -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    agent, _ = seat_agent("quit\n")
    first = asyncio.run(agent.decide(context(game, 2)))
    assert first.payload is None and first.fallback_reason == FALLBACK_QUIT
    again = asyncio.run(agent.decide(context(game, 2)))
    assert again.fallback_reason == FALLBACK_QUIT


def test_end_of_input_counts_as_quitting() -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    agent, _ = seat_agent("")
    assert asyncio.run(agent.decide(context(game, 2))).fallback_reason == FALLBACK_QUIT


def test_parse_answer_for_each_field_kind() -> None:
    choice = Choice("target", (4, 7, 9), "a seat", nullable=True)
    # Seats are typed as themselves: '9' is seat 9, never the 9th (or 2nd) option.
    assert parse_answer(choice, "9") == 9 and parse_answer(choice, "seat 7") == 7
    assert parse_answer(choice, "nobody") is None and parse_answer(choice, "none") is None
    with pytest.raises(BadInput, match="not one of the seats 4, 7, 9"):
        parse_answer(choice, "2")
    weapons = Choice("weapon", ("rock", "paper"), "a weapon")
    assert parse_answer(weapons, "Paper") == "paper"
    multi = MultiChoice("seats", (4, 7, 9), "seats", 2)
    assert parse_answer(multi, "4, 9") == [4, 9] and parse_answer(multi, "") == []


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_human_seat_in_a_real_terminal(tmp_path: Path) -> None:
    config = tmp_path / "human.toml"
    config.write_text(
        f'variant = "toy"\nseed = 3\n[run]\nout = "{tmp_path / "out"}"\n'
        '[default_agent]\nkind = "random"\n[[agent]]\nkind = "human"\nseats = [1]\n'
    )
    launcher = "import tests.conftest; from sandbox.cli.main import main; main()"
    command = f"cd {ROOT} && {sys.executable} -c '{launcher}' run {config}; sleep 30"
    session = f"sbx-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", command], check=True
    )
    try:
        assert _wait_for(session, "type the")
        screen = _capture(session)
        assert "Your card" in screen and "lucky" in screen
        assert "seat=2, lucky" not in screen  # the referee's stream is hidden from a human
        subprocess.run(["tmux", "send-keys", "-t", session, "quit", "Enter"], check=True)
        assert _wait_for(session, "Leave the game?")  # quitting is confirmed
        subprocess.run(["tmux", "send-keys", "-t", session, "y", "Enter"], check=True)
        assert _wait_for(session, "transcript:")
        assert list((tmp_path / "out").glob("toy-s3-*.jsonl"))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)


def _capture(session: str) -> str:
    done = subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", session, "-S", "-200"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def _wait_for(session: str, text: str, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in _capture(session):
            return True
        time.sleep(0.2)
    return False


def test_a_killer_seat_reads_words_not_data() -> None:
    """The card, the state and the history are shown as sentences (the wording of
    `sandbox view`), and the model word "null" is never offered to a person."""
    killer = get_variant("killer")
    game = Game.new(killer, killer.parse_config({}), 5)
    request = game.pending()[0]  # a killer's night-1 opinion
    screen = io.StringIO()
    console = Console(file=screen, width=300, color_system=None)
    agent = HumanTerminalAgent(request.seat, io.StringIO("quit\n"), console)
    asyncio.run(agent.decide(DecisionContext.for_request(game, request)))
    shown = screen.getvalue()
    assert "Killer with 12 players: 3 killers, 3 police." in shown
    assert "You are dealt the killer card." in shown  # the seat's own line, said to it
    assert "fellow killers:" in shown
    assert "killer.game_started" not in shown and "killer.role" not in shown
    assert not re.search(r"\{'|\['|: None\b|=None\b", shown), shown
    assert not re.search(r"\bnull\b", shown), shown


def test_menu_keys_are_the_seat_numbers() -> None:
    vote = Choice("target", (1, 2, 4, 9, 11), "the player you vote out", nullable=True)
    shown = options_text(vote)
    assert "[9] seat 9" in shown and "[11] seat 11" in shown and "[5]" not in shown
    assert "or 'nobody'" in shown and "none" not in shown
    assert parse_answer(vote, "9") == 9  # typing 9 means seat 9 (it used to be seat 11)
    weapons = Choice("weapon", ("rock", "paper"), "a weapon")
    # other choices by letter, so that digits always mean seats
    assert "[a] rock" in options_text(weapons) and parse_answer(weapons, "b") == "paper"


def test_rules_on_request_and_the_question_again() -> None:
    game = Game.new(Toy(), ToyConfig(), 4)
    agent, screen = seat_agent("rules\n2\n")
    request = next(r for r in game.pending() if r.seat == 2)
    ctx = DecisionContext.for_request(game, request, lambda language: "RULE T-1: pick a number.")
    assert asyncio.run(agent.decide(ctx)).payload == {"pick": 2}
    out = screen.getvalue()
    assert "RULE T-1: pick a number." in out and "'rules' shows the rules" in out


def test_terminal_time_limit_falls_back_and_keeps_the_late_line() -> None:
    import os
    import threading

    read_end, write_end = os.pipe()
    keys = os.fdopen(read_end, "r")
    screen = io.StringIO()
    agent = HumanTerminalAgent(
        2, keys, Console(file=screen, width=200, color_system=None), decision_timeout_s=0.2
    )
    game = Game.new(Toy(), ToyConfig(), 4)

    async def two_questions() -> tuple[object, object]:
        request = next(r for r in game.pending() if r.seat == 2)
        first = await agent.decide(DecisionContext.for_request(game, request))
        threading.Timer(0.05, lambda: os.write(write_end, b"3\n")).start()
        second = await agent.decide(DecisionContext.for_request(game, request))
        return first, second

    try:
        first, second = asyncio.run(two_questions())
    finally:
        os.close(write_end)
        keys.close()
    assert getattr(first, "fallback_reason", None) == FALLBACK_TIMEOUT
    assert getattr(second, "payload", None) == {"pick": 3}  # the late typing was not lost
    assert "Time is up" in screen.getvalue()
