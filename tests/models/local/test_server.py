"""The real llama-server: start once, answer, batch, cache, stop, and never outlive its parent."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import textwrap
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sandbox.models.local import (
    LocalModel,
    LocalModelError,
    LocalServer,
    ServerSettings,
    endpoint_for,
    running_servers,
    stop_all,
)
from sandbox.models.local import server as local_server
from sandbox.models.local.router import Route, SlotRouter
from tests.models.local.conftest import (
    port_holders,
    process_gone,
    requires_local,
    server_children,
    wait_gone,
)

pytestmark = [requires_local, pytest.mark.local_model]

SMALL = ServerSettings(slots=2, n_ctx=512, n_threads=1, cache=False, start_timeout_s=60)


@pytest.fixture(autouse=True)
def no_server_left() -> Iterator[None]:
    yield
    stop_all()


def get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as response:
        data: dict[str, object] = json.load(response)
        return data


def listed_ids(api_base: str) -> list[str]:
    """The model ids a server's ``/models`` lists."""
    listed = get_json(f"{api_base}/models")
    data = listed["data"]
    assert isinstance(data, list)
    return [str(entry["id"]) for entry in data]


async def test_one_server_is_shared_by_concurrent_first_uses(packaged_gguf: Path) -> None:
    endpoints = await asyncio.gather(*(endpoint_for("local/smollm2") for _ in range(4)))
    assert len(set(endpoints)) == 1
    api_base, model = endpoints[0]
    assert model == "openai/smollm2"
    assert api_base.startswith("http://127.0.0.1:") and api_base.endswith("/v1")
    assert listed_ids(api_base) == ["smollm2"]
    # The same file named by its path reaches the running server under that
    # server's own alias (the one it answers to), not the file's name.
    assert await endpoint_for(f"local:{packaged_gguf}") == (api_base, "openai/smollm2")
    assert len(running_servers()) == 1


async def test_a_file_named_two_ways_at_once_starts_one_server(packaged_gguf: Path) -> None:
    # Whichever name wins the race starts the server; every caller gets the
    # alias that server answers to (the race once made the test above flaky).
    endpoints = await asyncio.gather(
        endpoint_for("local/smollm2"), endpoint_for(f"local:{packaged_gguf}")
    )
    assert len(set(endpoints)) == 1
    api_base, model = endpoints[0]
    assert [f"openai/{name}" for name in listed_ids(api_base)] == [model]
    assert len(running_servers()) == 1


async def test_stop_all_ends_the_process_and_frees_the_port() -> None:
    await endpoint_for("local/smollm2")
    (server,) = running_servers()
    assert server.process is not None and server.port is not None
    pid, port = server.process.pid, server.port
    (llama_server,) = server_children(pid)  # the watcher holds one llama-server
    holders = port_holders(port)
    assert llama_server in holders
    stop_all()
    assert wait_gone(pid, 10)
    assert wait_gone(llama_server, 10)
    # Freed by everyone who held it (an inherited socket would keep its holder
    # listed). Whether the port answers says nothing: on a busy machine another
    # process may bind the freed port at once (a CI run saw it).
    assert all(wait_gone(holder, 10) for holder in holders)
    assert not port_holders(port) & holders
    assert running_servers() == []


async def test_constrained_json_answer_in_llama_cpp_form() -> None:
    api_base, _ = await endpoint_for("local/smollm2")
    schema = {
        "type": "object",
        "properties": {"vote": {"enum": [3, 5, None]}},
        "required": ["vote"],
    }
    body = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Vote for seat 3, 5 or nobody. JSON only."}],
        "response_format": {"type": "json_object", "schema": schema},
        "max_tokens": 64,  # room for the whitespace the grammar allows
        "temperature": 0.0,  # greedy: the same answer every run
    }
    reply = _chat(api_base, body)
    answer = json.loads(reply["choices"][0]["message"]["content"], strict=False)
    assert answer["vote"] in (3, 5, None)


def test_a_server_that_dies_reports_its_last_output(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file" * 100)
    server = LocalServer(LocalModel("broken", broken), SMALL)
    with pytest.raises(LocalModelError) as err:
        server.start()
    message = str(err.value)
    assert "local server for broken exited" in message
    assert "its last output:" in message
    assert message.split("its last output:\n", 1)[1].strip() != "(no output)"
    assert server.process is not None and process_gone(server.process.pid)


def test_a_server_that_never_answers_times_out_and_is_stopped(
    monkeypatch: pytest.MonkeyPatch, packaged_gguf: Path
) -> None:
    monkeypatch.setattr(local_server, "_answers", lambda url: False)
    settings = ServerSettings(slots=2, n_ctx=512, n_threads=1, cache=False, start_timeout_s=1)
    server = LocalServer(LocalModel("smollm2", packaged_gguf), settings)
    with pytest.raises(LocalModelError, match="did not answer within 1s"):
        server.start()
    assert server.process is not None and wait_gone(server.process.pid, 10)


@pytest.mark.parametrize("log_says_why", [True, False])
def test_a_taken_port_is_retried_on_another(
    monkeypatch: pytest.MonkeyPatch, packaged_gguf: Path, log_says_why: bool
) -> None:
    """Retried whether or not the server's log names the lost port (under load
    its exit once left the log empty, and the start failed)."""
    if not log_says_why:
        monkeypatch.setattr(local_server, "_lost_port", lambda output: False)
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        offered = iter([taken])
        real_free_port = local_server.free_port

        def taken_first(host: str = "127.0.0.1") -> int:
            return next(offered, None) or real_free_port(host)

        monkeypatch.setattr(local_server, "free_port", taken_first)
        server = LocalServer(LocalModel("smollm2", packaged_gguf), SMALL)
        try:
            server.start()
            assert server.port is not None and server.port != taken
            assert server.running
        finally:
            server.stop()


def test_a_port_in_use_is_one_another_process_listens_on() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert local_server._port_in_use("127.0.0.1", port)
    assert not local_server._port_in_use("127.0.0.1", port)
    assert not local_server._port_in_use("127.0.0.1", None)


CHILD = textwrap.dedent(
    """
    import sys, time
    from sandbox.models.local import ensure_server
    server = ensure_server("local/smollm2")
    print(server.process.pid, flush=True)
    print(server._slot_dir, flush=True)
    time.sleep(120)
    """
)


# Bounds from the code's own waits plus a margin over what was measured with both
# cores kept busy (2026-12-06, load 11-13): the parent exits within 0.4 s of the
# signal and the server 0.4 s later, whatever the signal. Their worst cases are
# stop()'s two grace periods (SIGTERM, then SIGKILL: 2 x STOP_GRACE_S) for the
# parent and the lifeline's 5 s before it kills the server; the rest is margin
# for a machine busier still.
PARENT_EXIT_S = 2 * local_server.STOP_GRACE_S + 50
SERVER_EXIT_S = 5 + 25


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_parent_that_is_killed_leaves_no_server(how: signal.Signals) -> None:
    # SIGINT runs atexit; SIGKILL and default SIGTERM do not: the lifeline must act.
    parent = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, cwd=Path.cwd()
    )
    try:
        assert parent.stdout is not None
        server_pid = int(parent.stdout.readline())
        slot_dir = Path(parent.stdout.readline().strip())
        assert not process_gone(server_pid) and slot_dir.is_dir()
        (llama_server,) = server_children(server_pid)
        parent.send_signal(how)
        parent.wait(PARENT_EXIT_S)
        assert wait_gone(server_pid, SERVER_EXIT_S), (
            f"server {server_pid} outlived its parent ({how.name})"
        )
        assert wait_gone(llama_server, SERVER_EXIT_S), (
            f"llama-server outlived its parent ({how.name})"
        )
        # its slot files go with it (the watcher removed them before exiting)
        assert not slot_dir.exists(), f"the slot folder outlived its parent ({how.name})"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


async def test_a_long_max_length_does_not_crash_the_server() -> None:
    # llama.cpp rejects a grammar for maxLength 1200 and the server used to die
    # (SIGSEGV) on the first speech request; the core's Text fields use 1200.
    api_base, _ = await endpoint_for("local/smollm2")
    schema = {
        "type": "object",
        "properties": {"speech": {"type": "string", "maxLength": 1200}},
        "required": ["speech"],
    }
    body = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Say hello. JSON only."}],
        "response_format": {"type": "json_object", "schema": schema},
        "max_tokens": 12,
    }
    reply = _chat(api_base, body)
    assert reply["choices"][0]["message"]["content"].startswith("{")
    (server,) = running_servers()
    assert server.running


async def test_a_short_max_length_is_kept_and_closes_the_string() -> None:
    """Short limits survive the server's safety net: the grammar ends the string
    in time, so a generous max_tokens never cuts the JSON (the compact style's
    reasoning and speech caps rely on this)."""
    api_base, _ = await endpoint_for("local/smollm2")
    schema = {
        "type": "object",
        "properties": {"story": {"type": "string", "maxLength": 12}},
        "required": ["story"],
    }
    body = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": "Tell a very long story. JSON only."}],
        "response_format": {"type": "json_object", "schema": schema},
        "max_tokens": 64,
        "temperature": 0.7,
    }
    reply = _chat(api_base, body)
    answer = json.loads(reply["choices"][0]["message"]["content"], strict=False)
    assert 0 <= len(answer["story"]) <= 12
    assert reply["choices"][0]["finish_reason"] == "stop"


async def test_sealed_requests_are_decoded_together() -> None:
    """A sealed step's requests run at once on the server's slots: each
    answer is valid, and the server reports having run them in parallel."""
    api_base, _ = await endpoint_for("local/smollm2")
    (server,) = running_servers()
    props = get_json(api_base.removesuffix("/v1") + "/props")
    assert props["total_slots"] == server.settings.slots > 1
    schema = {"type": "object", "properties": {"vote": {"enum": [1, 2, 3]}}, "required": ["vote"]}

    def vote(seat: int) -> dict[str, Any]:
        body = {
            "model": "smollm2",
            "messages": [{"role": "user", "content": f"You are seat {seat}. Vote 1, 2 or 3."}],
            "response_format": {"type": "json_object", "schema": schema},
            "max_tokens": 48,  # room for the grammar's optional whitespace
        }
        return _chat(api_base, body)

    seats = range(1, server.settings.slots + 1)
    loop = asyncio.get_running_loop()
    # one thread per request: asyncio.to_thread's default pool has only cpus + 4 workers,
    # fewer than the server's slots on a 2-core machine
    with ThreadPoolExecutor(max_workers=len(seats)) as threads:
        replies = await asyncio.gather(*(loop.run_in_executor(threads, vote, s) for s in seats))
    for reply in replies:
        assert json.loads(reply["choices"][0]["message"]["content"])["vote"] in (1, 2, 3)
    slots = get_json(api_base.removesuffix("/v1") + "/slots")
    used = [slot for slot in slots if slot["n_ctx"] > 0 and slot.get("id_task", -1) != -1]  # type: ignore[union-attr, operator]
    assert len(used) == server.settings.slots  # every slot took one of the requests


async def test_a_seat_finds_its_prompt_cached_after_other_seats_decided() -> None:
    """More seats than slots: seat 1's slot passes to another seat, its
    evaluated prompt goes to the RAM prompt cache, and its next decision
    re-reads only what is new."""
    api_base, _ = await endpoint_for("local/smollm2")
    (server,) = running_servers()

    def ask(seat: int, history: str) -> dict[str, Any]:
        system = f"You are seat {seat} in a long game of cards. " + "Remember the rules. " * 60
        body = {
            "model": "smollm2",
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": history + " Say one word."},
            ],
            "max_tokens": 4,
        }
        return _chat(api_base, body)

    first = ask(1, "Night 1 passed.")
    for seat in range(2, server.settings.slots + 3):  # every slot is taken over
        ask(seat, "Night 1 passed.")
    again = ask(1, "Night 1 passed. Day 1: seat 2 spoke.")
    read_first = first["usage"]["prompt_tokens"]
    cached = again["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert read_first > 200
    assert cached >= read_first - 20  # all but the changed tail came from the cache


def _chat(api_base: str, body: dict[str, Any]) -> dict[str, Any]:
    """One chat completion straight over HTTP (no client library in between)."""
    request = urllib.request.Request(
        f"{api_base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        reply: dict[str, Any] = json.load(response)
    return reply


async def test_the_router_copies_one_slots_prompt_into_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SANDBOX_LOCAL_ROUTE=1: the server saves slot files in its own folder;
    a second seat's call, sent to another slot, starts from the first seat's
    evaluated prompt (llama-server's slot save and restore) instead of
    reading the shared part again; the folder goes with the server."""
    monkeypatch.setenv("SANDBOX_LOCAL_ROUTE", "1")
    api_base, _ = await endpoint_for("local/smollm2")
    (server,) = running_servers()
    slot_dir = server._slot_dir
    assert slot_dir is not None and slot_dir.is_dir()
    router = SlotRouter(api_base.removesuffix("/v1"), server.settings.slots)
    primer = "The record every seat saw: " + "seat 3 spoke; seat 4 voted. " * 60

    def ask(slot: int, tail: str) -> dict[str, Any]:
        body = {
            "model": "smollm2",
            "messages": [{"role": "user", "content": primer + tail}],
            "max_tokens": 4,
            "id_slot": slot,
            "cache_prompt": True,
        }
        return _chat(api_base, body)

    first_messages = [{"role": "user", "content": primer + "Seat 1, say one word."}]
    second_messages = [{"role": "user", "content": primer + "Seat 2, say one word."}]
    taken = asyncio.Event()

    async def first_call() -> tuple[int, int]:
        async with router.route(first_messages) as first:
            taken.set()
            answer = await asyncio.to_thread(ask, first.slot, "Seat 1, say one word.")
            return first.slot, int(answer["usage"]["prompt_tokens"])

    async def second_call() -> tuple[Route, dict[str, Any]]:
        await taken.wait()
        # the first seat's slot is busy: the copy waits for its call to end
        async with router.route(second_messages) as second:
            assert (slot_dir / f"slot-{second.copied_from}.bin").is_file()
            answer = await asyncio.to_thread(ask, second.slot, "Seat 2, say one word.")
            return second, answer["usage"]

    (first_slot, read), (second, usage) = await asyncio.gather(first_call(), second_call())
    assert second.slot != first_slot and second.copied_from == first_slot
    assert read > 300
    assert usage["prompt_tokens_details"]["cached_tokens"] >= read - 20
    stop_all()
    assert not slot_dir.exists()
