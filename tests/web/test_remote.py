"""Remote seats (issue 22, item 5): a program plays a seat over a WebSocket.

Real games through the session with the run's real server on loopback; the
programs are the shipped Python client (in a thread) and, where Node.js is on
the machine, the JavaScript client in examples/."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from sandbox.analysis.trajectories import trajectory_rows
from sandbox.core.events import DecisionMade
from sandbox.session.gamefile import parse_config
from sandbox.session.replay import replay
from sandbox.transcript import read_game, read_transcript
from sandbox.web.client import RemoteClient, random_move
from sandbox.web.remote import FALLBACK_DISCONNECTED
from sandbox.web.run import WebRun
from tests.web.helpers import SessionThread, quiet

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "remote-test-token-0123456789"
SEAT = 3


def remote_file(port: int, **remote: object) -> dict[str, object]:
    return {
        "variant": "killer",
        "rules": {"players": 11},
        "default_agent": {"kind": "baseline"},
        "agent": [
            {
                "kind": "remote",
                "seats": [SEAT],
                "port": port,
                "token_env": "SANDBOX_TEST_REMOTE_TOKEN",
                "connect_timeout_s": 20,
                **remote,
            }
        ],
    }


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("SANDBOX_TEST_REMOTE_TOKEN", TOKEN)
    web = WebRun(announce=quiet)
    port = web.hub(0).port
    yield web, port
    web.stop()


def url(port: int) -> str:
    return f"ws://127.0.0.1:{port}/agent?t={TOKEN}"


def seat_decisions(path: Path) -> list[DecisionMade]:
    events = read_transcript(path).events
    return [e for e in events if isinstance(e, DecisionMade) and e.seat == SEAT]


def test_a_program_plays_a_whole_game_and_replay_reproduces_it(run: Any, tmp_path: Path) -> None:
    web, port = run
    session = SessionThread(parse_config(remote_file(port)), 5, tmp_path, web)
    session.start()
    client = RemoteClient(url(port))
    end = client.play(random_move(3))
    record = session.finish(60)
    assert end is not None and end["type"] == "game_over"
    assert end["roles"][str(SEAT)] == record.roles[SEAT]
    assert end["results"][str(SEAT)] == record.outcome.results[SEAT]  # type: ignore[union-attr]
    made = seat_decisions(record.path)
    assert made and not any(d.fallback for d in made)
    observations = [m for m in client.messages if m["type"] == "observation"]
    assert len(observations) == len(made)
    first = observations[0]["observation"]
    assert first["seat"] == SEAT and first["variant"] == "killer"
    assert {"view", "prompt", "request", "masks", "moves"} <= set(first)
    assert client.messages[0]["type"] == "hello" and client.messages[0]["seat"] == SEAT
    assert replay(record.path) is None  # the game replays exactly from its transcript
    text = record.path.read_text()
    assert TOKEN not in text  # the endpoint's secret never reaches the transcript
    assert read_transcript(record.path).header["agents"][str(SEAT)]["kind"] == "remote"


def test_garbage_then_a_disconnect_ends_in_recorded_fallbacks(
    run: Any, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    web, port = run
    loaded = parse_config(remote_file(port, max_invalid=3, reconnect_s=0.3))
    session = SessionThread(loaded, 5, tmp_path, web)
    session.start()
    replies: list[dict[str, Any]] = []
    with RemoteClient(url(port)).connect() as socket:
        hello = json.loads(socket.recv(10))
        assert hello["type"] == "hello"
        question = json.loads(socket.recv(30))
        assert question["type"] == "observation"
        # as many answers as max_invalid: the third refusal is the fallback
        assert question["attempts_left"] == hello["max_invalid"] == 3
        socket.send(b"\xff\xfe not json")  # bytes that are no JSON at all
        replies.append(json.loads(socket.recv(10)))
        socket.send(
            json.dumps(
                {
                    "type": "answer",
                    "request_id": question["request_id"],
                    "answer": {"nonsense": True},
                }
            )
        )
        replies.append(json.loads(socket.recv(10)))
        socket.send("[1, 2]")
        replies.append(json.loads(socket.recv(10)))
    record = session.finish(120)  # the program is gone: every later decision falls back
    assert [r["type"] for r in replies] == ["refused", "refused", "refused"]
    assert [r["attempts_left"] for r in replies] == [2, 1, 0]
    assert "[" in replies[1]["error"]  # the referee's message names its rule
    made = seat_decisions(record.path)
    reasons = [d.fallback_reason for d in made]
    assert reasons[0] == "invalid"
    assert set(reasons[1:]) == {FALLBACK_DISCONNECTED} and len(reasons) > 1
    assert record.outcome is not None
    err = capfd.readouterr().err
    assert "Traceback" not in err
    # Recorded like an LLM seat: each refused answer a call line with the
    # referee's reason, the disconnect a line of its own, repairs counted.
    calls = [c for c in read_transcript(record.path).calls if c["seat"] == SEAT]
    first = [c for c in calls if c["request_id"] == made[0].request_id and "link" not in c]
    assert [c["repair"] for c in first] == [0, 1, 2]
    assert all(str(c["error"]).startswith("invalid: ") for c in first)
    assert first[0]["raw"].endswith(" not json") and "[" in first[1]["error"]
    assert [c["link"] for c in calls if "link" in c][:1] == ["disconnected"]
    assert record.stats.repairs == 2
    assert replay(record.path) is None  # the counters agree with the call lines
    rows, _ = trajectory_rows(read_game(record.path))
    [row] = [r for r in rows if r["request_id"] == made[0].request_id]
    assert row["repairs"] == 2 and row["referee_error"] == first[-1]["error"][len("invalid: ") :]
    assert sum(r["disconnects"] for r in rows) == 1


def test_a_reconnect_is_sent_the_open_question_and_plays_on(run: Any, tmp_path: Path) -> None:
    web, port = run
    session = SessionThread(parse_config(remote_file(port, reconnect_s=20)), 5, tmp_path, web)
    session.start()
    with RemoteClient(url(port)).connect() as socket:  # retried until the seat is served
        json.loads(socket.recv(20))  # hello
        first = json.loads(socket.recv(30))
        assert first["type"] == "observation"
    # gone without answering; back within reconnect_s: the same question again
    client = RemoteClient(url(port))
    end = client.play(random_move(1))
    record = session.finish(60)
    assert end is not None
    resent = next(m for m in client.messages if m["type"] == "observation")
    assert resent["request_id"] == first["request_id"]
    assert not any(d.fallback for d in seat_decisions(record.path))
    links = [c["link"] for c in read_transcript(record.path).calls if "link" in c]
    assert links[:2] == ["disconnected", "reconnected"]


def test_a_wrong_token_is_refused_before_the_handshake(run: Any) -> None:
    _web, port = run
    wrong = url(port).replace(TOKEN, TOKEN[:-1] + "X")
    with pytest.raises(InvalidStatus) as refused:
        connect(wrong, open_timeout=5)
    assert refused.value.response.status_code == 403


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not on this machine")
def test_the_javascript_client_plays_a_whole_game(run: Any, tmp_path: Path) -> None:
    web, port = run
    session = SessionThread(parse_config(remote_file(port)), 7, tmp_path, web)
    session.start()
    node = subprocess.run(
        [
            "node",
            "--experimental-websocket",
            str(ROOT / "examples" / "remote_client.mjs"),
            url(port),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    record = session.finish(60)
    assert node.returncode == 0, node.stderr
    end = json.loads(node.stdout.strip().splitlines()[-1])
    assert end["type"] == "game_over" and end["results"][str(SEAT)] == record.outcome.results[SEAT]  # type: ignore[union-attr]
    made = seat_decisions(record.path)
    assert made and not any(d.fallback for d in made)


def test_the_python_client_command_reports_a_missing_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from sandbox.web.client import main

    code = main(["ws://127.0.0.1:9/agent?t=x", "--policy", "first", "--connect-timeout", "0.3"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: cannot connect to the remote seat")
    assert len(err.strip().splitlines()) == 1


def test_sandbox_run_announces_the_address_and_sends_game_over(tmp_path: Path) -> None:
    """The command line end to end: the run prints the address, the shipped
    client plays the seat and gets the game's end."""
    import sys
    import time

    cmd = [sys.executable, "-m", "sandbox", "run", str(ROOT / "configs" / "killer_remote.toml"),
           "--seed", "3", "--out", str(tmp_path)]  # fmt: skip
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert run.stderr is not None
        line = run.stderr.readline()
        deadline = time.monotonic() + 60
        while "ws://" not in line and time.monotonic() < deadline:
            line = run.stderr.readline()
        address = line[line.index("ws://") :].split()[0]
        end = RemoteClient(address).play(random_move(5))
        _out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 0, err
    assert (
        end is not None
        and end["type"] == "game_over"
        and set(end["roles"]) == {str(s) for s in range(1, 12)}
    )
    assert "Traceback" not in err
