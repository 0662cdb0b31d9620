"""The terminal seat asks like a person would be asked (issue 20): yes/no for
booleans, letters for options so digits always mean seats, the seat and its side
marked, only a refused field asked again, the question again after `rules`,
`quit` confirmed — scripted keystrokes, and a real terminal under tmux."""

from __future__ import annotations

import asyncio
import io
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from sandbox.agents.human.terminal import (
    BadInput,
    HumanTerminalAgent,
    QuitGame,
    options_text,
    parse_answer,
)
from sandbox.cli.main import app
from sandbox.core.game import Game
from sandbox.core.requests import Choice, MultiChoice
from sandbox.core.seat import FALLBACK_QUIT, DecisionContext
from sandbox.games.registry import get_variant

ROOT = Path(__file__).resolve().parents[2]
TERMINAL_FILE = ROOT / "configs" / "killer_human_terminal.toml"


def killer_speech() -> tuple[Game, DecisionContext]:
    """Seed 5, every seat answering plainly until the first day speech."""
    killer = get_variant("killer")
    game = Game.new(killer, killer.parse_config({}), 5)
    while True:
        requests = game.pending()
        if requests[0].decision == "speech":
            return game, DecisionContext.for_request(game, requests[0])
        for request in requests:
            game.submit_fallback(request.id, "test")


def ask(ctx: DecisionContext, keys: str) -> tuple[object, str]:
    screen = io.StringIO()
    console = Console(file=screen, width=250, color_system=None)
    agent = HumanTerminalAgent(ctx.seat, io.StringIO(keys), console)
    answer = asyncio.run(agent.decide(ctx))
    return answer, screen.getvalue()


def test_yes_no_and_letters_so_that_digits_mean_seats() -> None:
    concede = Choice("concede", (False, True), "true concedes")
    assert "[y] yes  [n] no" in options_text(concede)
    for word, value in (("y", True), ("YES", True), ("是", True), ("n", False), ("no", False)):
        assert parse_answer(concede, word) is value
    assert parse_answer(concede, "否") is False
    with pytest.raises(BadInput, match="type y or n"):
        parse_answer(concede, "1")  # a digit never answers a yes/no question
    claim = Choice("claim", ("none", "civilian", "police", "killer"), "a role")
    assert "[a] none  [b] civilian  [c] police  [d] killer" in options_text(claim)
    assert parse_answer(claim, "c") == "police" and parse_answer(claim, "Killer") == "killer"
    with pytest.raises(BadInput, match="letters a, b, c, d"):
        parse_answer(claim, "2")
    vote = Choice("target", (2, 3, 7), "a seat", nullable=True)
    marks = {3: "you", 7: "partner"}
    assert "[3] seat 3 (you)  [7] seat 7 (partner)" in options_text(vote, marks)
    assert parse_answer(MultiChoice("accuse", (2, 3, 7), "seats", 3), "2, 7") == [2, 7]


def test_only_the_refused_field_is_asked_again() -> None:
    _, ctx = killer_speech()
    other = next(s for s in ctx.request.field("accuse").options if isinstance(s, int))
    # speech, claim, accuse, vouch; then KG-14 refuses accusing and vouching for
    # one seat: only accuse and vouch are asked again, the speech is kept
    keys = f"I suspect seat {other}.\na\n{other}\n{other}\n{other}\n\n"
    if "concede" in {f.name for f in ctx.request.fields}:
        keys = keys.replace("\n\n", "\n\nn\n")
    answer, shown = ask(ctx, keys + "quit\ny\n")
    payload = getattr(answer, "payload", None)
    assert payload is not None and payload["speech"] == f"I suspect seat {other}."
    assert list(payload["accuse"]) == [other] and list(payload["vouch"]) == []
    assert "both accused and vouched for" in shown and "(rule KG-14)" in shown
    assert "Legal options" not in shown
    assert shown.count("speech: your public speech") == 1  # never asked twice
    assert shown.count("accuse: living other seats") == 2


def test_rules_repeat_the_question_and_quit_is_confirmed() -> None:
    game, ctx = killer_speech()
    ctx = DecisionContext.for_request(game, ctx.request, lambda language: "RULE KG-8: speak.")
    answer, shown = ask(ctx, "rules\nquit\nn\nquit\ny\n")
    assert "RULE KG-8: speak." in shown
    after_rules = shown.split("RULE KG-8: speak.")[1]
    assert after_rules.lstrip("\n").startswith("Day 1: it is your turn to speak")
    assert shown.count("Leave the game? The referee plays your remaining decisions.") == 2
    assert getattr(answer, "fallback_reason", None) == FALLBACK_QUIT  # after the second "y"


def test_the_terminal_game_file_validates() -> None:
    result = CliRunner().invoke(app, ["validate", str(TERMINAL_FILE)])
    assert result.exit_code == 0, result.output
    assert "seats 3: human (terminal)" in result.output


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_killer_game_in_a_real_terminal(tmp_path: Path) -> None:
    """configs/killer_human_terminal.toml, seed 37: seat 3 is killed on night 1
    and owes last words — the claim offers letters, `rules` asks again, `quit`
    is confirmed."""
    launcher = "import tests.conftest; from sandbox.cli.main import main; main()"
    out = tmp_path / "out"
    command = (
        f"cd {ROOT} && {sys.executable} -c '{launcher}' run {TERMINAL_FILE} --seed 37 "
        f"--out {out}; sleep 30"
    )
    session = f"sbx-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "60", command], check=True
    )
    try:
        assert _wait_for(session, "(free text, at most")
        keys(session, "My last words.")
        assert _wait_for(session, "[a] none")
        keys(session, "rules")
        assert _wait_for(session, "KG-", count=2)
        # the question again after the rules, then the prompt (printed a moment later)
        assert _wait_for(session, "claim: the role you claim", count=2)
        deadline = time.monotonic() + 30
        while not _capture(session).rstrip().endswith(">") and time.monotonic() < deadline:
            time.sleep(0.2)
        screen = _capture(session)
        assert screen.rstrip().endswith(">") and screen.count("claim: the role you claim") == 2
        keys(session, "quit")
        assert _wait_for(session, "Leave the game?")
        keys(session, "y")
        assert _wait_for(session, "transcript:", timeout=60)
        # issue 38 item 8: told it is out, then the rest of the game, to its end
        screen = _capture(session)
        assert "You are out of the game (killed in the night, Day 1)" in screen
        after = screen.split("Leave the game?")[-1]
        assert "Day 2" in after and "The game ends" in after
        # issue 38 item 6: then the story at the end, nights and claims with verdicts
        assert "The story of the game" in after and "Night 1" in after.split("story of")[-1]
        assert list(out.glob("killer-s37-*.jsonl"))
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)


def keys(session: str, text: str) -> None:
    subprocess.run(["tmux", "send-keys", "-t", session, "-l", text], check=True)
    subprocess.run(["tmux", "send-keys", "-t", session, "Enter"], check=True)


def _capture(session: str) -> str:
    done = subprocess.run(
        ["tmux", "capture-pane", "-p", "-J", "-t", session, "-S", "-5000"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def _wait_for(session: str, text: str, timeout: float = 30.0, count: int = 1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _capture(session).count(text) >= count:
            return True
        time.sleep(0.2)
    return False


def test_card_shows_the_role_card_again_and_now_shows_only_what_changed() -> None:
    """Issue 38 item 8: `card` prints the card again, then the question; a later
    turn shows only the facts of "Now" that changed, not the whole block."""
    game, ctx = killer_speech()
    screen = io.StringIO()
    console = Console(file=screen, width=250, color_system=None)
    agent = HumanTerminalAgent(ctx.seat, io.StringIO("card\nquit\nn\n"), console)
    with pytest.raises(QuitGame):  # the input ends: the person is gone
        asyncio.run(agent._ask_until_legal(ctx))
    agent._show_news(ctx)
    first = screen.getvalue()
    assert first.count("Your card:") == 2  # the `card` command, then the first turn's
    assert "'card' shows your card" in first
    assert first.count("Now:") == 1
    screen.truncate(0)
    screen.seek(0)
    while True:  # the seat's next question, the others answered by the referee
        for request in game.pending():
            if request.seat != ctx.seat or request.id == ctx.request.id:
                game.submit_fallback(request.id, "test")
        later = [r for r in game.pending() if r.seat == ctx.seat]
        if later:
            break
    agent._show_news(DecisionContext.for_request(game, later[0]))
    second = screen.getvalue()
    assert "Now:" not in second and "Your card:" not in second
    assert "Now (what changed):" in second
    assert second.count("\n  ") < first.count("\n  ")  # fewer fact lines than the block


def test_a_seat_out_of_the_game_follows_it_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 37: seat 3 is killed on night 1. Told "You are out", the person then
    sees each event the seat may see, days 2 and later included, and the end."""
    from sandbox.cli.display import Display
    from sandbox.session import play_game
    from sandbox.session.gamefile import load_config

    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\ny\n"))
    console = Console(file=io.StringIO(), width=250, color_system=None)
    display = Display(console, console, None, live=False)
    display.status = None
    play_game(load_config(TERMINAL_FILE), 37, tmp_path, hooks=display.hooks("killer"))
    shown = capsys.readouterr().err
    assert "You are out of the game (killed in the night, Day 1)" in shown, shown
    after = shown.split("You are out of the game")[1]
    assert "Day 2" in after and "The game ends" in after
    assert after.index("Day 2") < after.index("The game ends")
