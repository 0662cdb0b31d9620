"""The rough edges a new user met (issue 25 item 1): a missing optional extra,
Ctrl-C while the command line is still loading, scripted entries that cannot
be right, a hostile WebSocket client, and help texts naming absent options."""

from __future__ import annotations

import base64
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hardening.helpers import bot_game

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "tests" / "cli" / "sitehooks"  # sitecustomize: blocked imports, SIGINT
# The installed command, as a person runs it (spawned batch workers then load
# the command line too, which `python -m sandbox` would skip).
SANDBOX = [str(Path(sys.executable).with_name("sandbox"))]
KILLER_11 = ROOT / "configs" / "killer_11.toml"
# A bound on every child, not its duration: with both cores kept busy (2026-12-06,
# load 11-13, two runs) the invalid-UTF-8 test took at most 4.3 s and each Ctrl-C test at
# most 7.4 s from start to end; 120 s leaves a margin of 15x and more.
WAIT_S = 120


def sandbox(*args: str, cwd: Path, **faults: str) -> subprocess.CompletedProcess[str]:
    """``sandbox ARGS`` in a process (and session) of its own, with the faults of
    tests/cli/sitehooks switched on by ``faults`` (SANDBOX_TEST_<KEY>=value)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HOOKS), str(ROOT)]))
    env.update({f"SANDBOX_TEST_{key.upper()}": value for key, value in faults.items()})
    return subprocess.run(
        [*SANDBOX, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        start_new_session=True,  # the SIGINT hook signals its own process group
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


# ------------------------------------------------------- missing optional extra

STUDY_EXTRA = "pip install 'llm-deduction-sandbox[study]'"
RAY_EXTRA = "pip install 'llm-deduction-sandbox[ray]'"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    bot_game(folder)
    return folder


@pytest.mark.parametrize(
    ("args", "install"),
    [
        (["report", "{games}", "--out", "{tmp}/r.html"], STUDY_EXTRA),
        (["export", "{games}", "--format", "parquet", "--out", "{tmp}/x"], STUDY_EXTRA),
        (["batch", str(KILLER_11), "--games", "1", "--backend", "ray"], RAY_EXTRA),
        (["study", str(ROOT / "configs" / "study_fake.toml"), "--backend", "ray"], RAY_EXTRA),
    ],
    ids=["report", "export parquet", "batch ray", "study ray"],
)
def test_a_missing_extra_is_one_line_naming_it(
    games: Path, tmp_path: Path, args: list[str], install: str
) -> None:
    filled = [a.format(games=games, tmp=tmp_path) for a in args]
    done = sandbox(*filled, cwd=tmp_path, block="matplotlib,pandas,pyarrow,ray")
    line = one_error_line(done)
    assert install in line and "Traceback" not in done.stderr
    assert not (tmp_path / "r.html").exists()


# --------------------------------------------------------------------- Ctrl-C


@pytest.mark.parametrize("module", ["typer", "rich.progress", "sandbox.cli.study"])
def test_ctrl_c_while_the_commands_load_is_a_quiet_130(tmp_path: Path, module: str) -> None:
    done = sandbox(
        "batch", str(KILLER_11), "--games", "2", "--jobs", "2", "--out", str(tmp_path),
        cwd=tmp_path, sigint_at=module,
    )  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr


def test_ctrl_c_while_a_batch_worker_starts_is_a_quiet_130(tmp_path: Path) -> None:
    # The worker, spawned a moment earlier, is still loading the command line
    # when Ctrl-C reaches it and its parent.
    done = sandbox(
        "batch", str(KILLER_11), "--games", "4", "--jobs", "2", "--out", str(tmp_path / "out"),
        cwd=tmp_path, sigint_at="sandbox.cli.study", sigint_in="worker",
        sigint_once=str(tmp_path / "fired"),
    )  # fmt: skip
    assert (tmp_path / "fired").exists()
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr


def test_ctrl_c_inside_a_command_is_a_quiet_130(games: Path, tmp_path: Path) -> None:
    done = sandbox("report", str(games), "--out", str(tmp_path / "r.html"), cwd=tmp_path,
                   sigint_at="matplotlib")  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr


# ------------------------------------------------- scripted entries, validated

LONG_SPEECH = "x" * 1201  # the speech limit of these configs is 1200 characters


def scripted(tmp_path: Path, entries: str, variant: str = "killer", rules: str = "") -> Path:
    path = tmp_path / "scripted.toml"
    path.write_text(
        f'variant = "{variant}"\n[rules]\n{rules}\n'
        '[[agent]]\nseats = [2]\nkind = "baseline"\n'
        f'[[agent]]\nseats = [1]\nkind = "scripted"\ndecisions = [\n{entries}\n]\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("entries", "says"),
    [
        ('{ decision = "vote", target = 99 }', "decisions[1].target: seat 99"),
        ('{ decision = "vote", target = 3 },\n{ target = 13 }', "decisions[2].target: seat 13"),
        ('{ decision = "vote", target = "abc" }', "decisions[1].target: must be a number"),
        ('{ decision = "vote", target = [1, 2] }', "decisions[1].target: must be one value"),
        ('{ decision = "check_opinion", suspect = 0 }', "decisions[1].suspect: seat 0"),
        (f'{{ decision = "speech", speech = "{LONG_SPEECH}" }}', "1201 characters"),
        ('{ decision = "speech", speech = 7 }', "decisions[1].speech: must be text"),
        ('{ decision = "speech", speech = "hi", accuse = [2, 40] }', "accuse: seat 40"),
        ('{ decision = "speech", speech = "hi", accuse = 2 }', "accuse: must be a list"),
        ('{ decision = "speech", speech = "hi", concede = 1 }', "concede: must be true/false"),
    ],
    ids=lambda v: v if len(v) < 40 else v[:40],
)
def test_validate_refuses_a_scripted_entry_that_cannot_be_answered(
    tmp_path: Path, entries: str, says: str
) -> None:
    path = scripted(tmp_path, entries, rules="players = 12")
    done = sandbox("validate", str(path), cwd=tmp_path)
    line = one_error_line(done)
    assert "agent[2].decisions[" in line and says in line, line


@pytest.mark.parametrize(
    ("variant", "rules", "entries"),
    [
        ("killer", "players = 12", '{ decision = "vote", target = 12 },\n{ suspect = 3 }'),
        ("four_factions", "", '{ decision = "attack", target = 4 }'),
    ],
)
def test_validate_keeps_scripted_entries_that_may_be_right(
    tmp_path: Path, variant: str, rules: str, entries: str
) -> None:
    path = scripted(tmp_path, entries, variant=variant, rules=rules)
    if variant != "killer":  # only Killer has a baseline bot for the second table
        text = path.read_text(encoding="utf-8").replace('kind = "baseline"', 'kind = "random"')
        path.write_text(text, encoding="utf-8")
    done = sandbox("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------- a hostile WebSocket client

BROWSER_SEAT = """variant = "killer"
[rules]
players = 12
[default_agent]
kind = "baseline"
[[agent]]
kind = "human"
seats = [3]
interface = "browser"
port = 0
decision_timeout_s = 300
[run]
out = "{out}"
"""
SEAT_URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?t=([A-Za-z0-9_-]+)")
CLOSE = 0x88  # a final close frame
INVALID_DATA = 1007  # RFC 6455: a text frame that is not UTF-8


def seat_address(process: subprocess.Popen[bytes], said: bytearray) -> tuple[int, str]:
    """The seat page's port and token, from what the run prints (bounded wait)."""
    assert process.stderr is not None
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(process.stderr.fileno(), 65536)
            assert chunk, said.decode()
            said += chunk
            found = SEAT_URL.search(said.decode(errors="replace"))
            if found:
                return int(found[1]), found[2]
    raise AssertionError(f"no seat address within {WAIT_S}s: {said.decode()}")


def open_socket(port: int, token: str) -> socket.socket:
    """A WebSocket handshake by hand, so that any frame at all can be sent."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall(
        f"GET /ws?t={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .encode()
    )  # fmt: skip
    head = b""
    while b"\r\n\r\n" not in head:
        head += conn.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return conn


def send_text_frame(conn: socket.socket, payload: bytes) -> None:
    mask = os.urandom(4)  # a client's frames are masked (RFC 6455 5.3)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    conn.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)


def parse_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The whole server frames (opcode, payload) at the start of ``data``."""
    out, at = [], 0
    while at + 2 <= len(data):
        opcode, size, head = data[at], data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, head = int.from_bytes(data[head : head + 2], "big"), head + 2
        elif size == 127:
            size, head = int.from_bytes(data[head : head + 8], "big"), head + 8
        if head + size > len(data):
            break  # the rest has not arrived yet
        out.append((opcode, data[head : head + size]))
        at = head + size
    return out


def frames(conn: socket.socket) -> list[tuple[int, bytes]]:
    """Server frames (opcode, payload) up to its close frame: what the test waits
    for, not for the server to drop the connection after the closing handshake
    (a server may wait for the client's own close frame first)."""
    data = b""
    while not any(opcode == CLOSE for opcode, _ in parse_frames(data)):
        chunk = conn.recv(65536)
        if not chunk:
            break  # dropped without a close frame: the assertion says so
        data += chunk
    return parse_frames(data)


def test_invalid_utf8_from_a_client_puts_no_traceback_on_the_terminal(tmp_path: Path) -> None:
    config = tmp_path / "browser.toml"
    config.write_text(BROWSER_SEAT.format(out=tmp_path / "out"), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [*SANDBOX, "run", str(config)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    said = bytearray()
    try:
        port, token = seat_address(process, said)
        hostile = open_socket(port, token)
        send_text_frame(hostile, b"\xff\xfe\xfd")
        closing = [payload for opcode, payload in frames(hostile) if opcode == CLOSE]
        assert closing and int.from_bytes(closing[0][:2], "big") == INVALID_DATA
        # the game goes on: the seat's page still gets its state
        again = open_socket(port, token)
        again.settimeout(WAIT_S)
        assert b'"seat": 3' in again.recv(65536)
        again.close()
        assert process.poll() is None
    finally:
        os.killpg(process.pid, signal.SIGINT)
        rest = process.communicate(timeout=WAIT_S)[1]
    stderr = (bytes(said) + rest).decode(errors="replace")
    assert "Traceback" not in stderr, stderr
    assert "web server: Invalid UTF-8" in stderr  # one line of its own, not silence


# ------------------------------------------------------------- study --out


def test_study_out_overrides_the_study_files_out(tmp_path: Path) -> None:
    study = ROOT / "configs" / "study_fake.toml"
    done = sandbox("study", str(study), "--out", "here", "--jobs", "1", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "here").glob("*.jsonl"))) == 12  # the study's 12 games
    again = sandbox("study", str(study), "--out", "here", "--json", cwd=tmp_path)
    assert '"played_now": 0' in again.stdout  # the same study, found where --out put it
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert "--out must be a folder" in one_error_line(
        sandbox("study", str(study), "--out", "file", cwd=tmp_path)
    )
