"""The client's slot router (sandbox/models/local/router.py): which slot a
call takes, when another slot's evaluated prompt is copied into it, and that a
refused copy costs only speed. The server side is a mock transport here; the
real llama-server's slot files are exercised in test_server.py."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from sandbox.models.local.router import MIN_GAIN_CHARS, SlotRouter, prompt_text, router_for
from sandbox.models.prefix import common_prefix

RECORD = "public record line\n" * 40  # well over MIN_GAIN_CHARS


def messages(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "primer"}, {"role": "user", "content": user}]


class Server:
    """Answers /slots/{id}?action=save|restore and remembers what was asked."""

    def __init__(self, refuse: bool = False) -> None:
        self.actions: list[tuple[str, int, str]] = []
        self.refuse = refuse

    def handler(self, request: httpx.Request) -> httpx.Response:
        slot = int(request.url.path.rsplit("/", 1)[-1])
        action = request.url.params["action"]
        self.actions.append((action, slot, json.loads(request.content)["filename"]))
        if self.refuse:
            return httpx.Response(400, json={"error": "no --slot-save-path"})
        return httpx.Response(200, json={"id_slot": slot})


def router(server: Server, slots: int = 3) -> SlotRouter:
    http = httpx.AsyncClient(transport=httpx.MockTransport(server.handler))
    return SlotRouter("http://127.0.0.1:9/", slots, http)


def test_common_prefix_and_prompt_text() -> None:
    assert common_prefix("abcdef", "abcxyz") == 3
    assert common_prefix("", "abc") == 0
    assert common_prefix("same", "same") == 4
    assert common_prefix("ab", "abc") == 2
    # the role is part of the text: a system "x" and a user "x" differ
    assert prompt_text([{"role": "system", "content": "x"}]) != prompt_text(
        [{"role": "user", "content": "x"}]
    )


def test_sequential_calls_keep_to_the_slot_that_holds_their_prefix() -> None:
    server = Server()

    async def play() -> list[int]:
        r = router(server)
        taken = []
        other_game = [{"role": "user", "content": "another primer"}]
        for sent in (messages(RECORD + "seat 3"), messages(RECORD + "more\nseat 4"), other_game):
            async with r.route(sent) as route:
                assert route.copied_from is None
                taken.append(route.slot)
        assert r.copies == 0
        return taken

    # the record's slot again (it is free), then a prompt sharing nothing
    # goes to the least recently used slot, not over the record
    assert asyncio.run(play()) == [0, 0, 1]
    assert server.actions == []


def test_concurrent_calls_start_from_the_busy_slot_that_read_the_record() -> None:
    server = Server()

    async def play() -> list[tuple[int, int | None]]:
        r = router(server)
        async with r.route(messages(RECORD + "last speaker")):
            pass
        taken: list[tuple[int, int | None]] = []
        first_done = asyncio.Event()

        async def vote(seat: int) -> None:
            async with r.route(messages(RECORD + f"vote of seat {seat}")) as route:
                taken.append((route.slot, route.copied_from))
                if seat == 1:
                    # the first vote's call is still on the server: nothing saved yet
                    await asyncio.sleep(0.01)
                    assert server.actions == []
                    first_done.set()
                else:
                    assert first_done.is_set()  # its copy waited for the first call

        # a sealed vote: three calls at once, each with the whole record
        await asyncio.gather(vote(1), vote(2), vote(3))
        assert r.copies == 2
        return taken

    taken = asyncio.run(play())
    assert taken[0] == (0, None)  # the slot that holds the record takes the first vote
    assert set(taken[1:]) == {(1, 0), (2, 0)}  # the others copy it once its call ended
    # slot 0 saved once (its state did not change in between), restored twice
    assert server.actions == [
        ("save", 0, "slot-0.bin"),
        ("restore", 1, "slot-0.bin"),
        ("restore", 2, "slot-0.bin"),
    ]


def test_a_short_shared_prefix_is_not_worth_a_copy() -> None:
    server = Server()

    async def play() -> int | None:
        r = router(server, slots=2)
        short = "x" * (MIN_GAIN_CHARS - 50)
        async with r.route(messages(short + "a")), r.route(messages(short + "b")) as second:
            return second.copied_from

    assert asyncio.run(play()) is None
    assert server.actions == []


def test_a_refused_copy_leaves_the_call_in_its_own_slot() -> None:
    server = Server(refuse=True)

    async def play() -> tuple[int, int | None, int]:
        r = router(server, slots=2)

        async def first() -> None:
            async with r.route(messages(RECORD + "a")):
                await asyncio.sleep(0.01)

        async def second() -> tuple[int, int | None, int]:
            async with r.route(messages(RECORD + "b")) as route:  # slot 0 is busy
                return route.slot, route.copied_from, r.copies

        _, got = await asyncio.gather(first(), second())
        return got

    assert asyncio.run(play()) == (1, None, 0)
    assert server.actions == [("save", 0, "slot-0.bin")]


def test_a_call_waits_for_a_free_slot() -> None:
    server = Server()
    order: list[str] = []

    async def call(r: SlotRouter, name: str, hold: float) -> None:
        async with r.route(messages(name)):
            order.append(f"{name} in")
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    async def play() -> None:
        r = router(server, slots=1)
        await asyncio.gather(call(r, "a", 0.05), call(r, "b", 0))

    asyncio.run(play())
    assert order == ["a in", "a out", "b in", "b out"]


@pytest.mark.parametrize("base", ["http://127.0.0.1:5/v1", "http://127.0.0.1:5/v1/"])
def test_one_router_per_server_and_loop(base: str) -> None:
    async def routers() -> tuple[SlotRouter, SlotRouter, SlotRouter]:
        return (
            router_for(base, 4),
            router_for("http://127.0.0.1:5", 4),
            router_for("http://127.0.0.1:6/v1", 4),
        )

    first, same, other = asyncio.run(routers())
    assert first is same and first.base_url == "http://127.0.0.1:5"
    assert other is not first


def test_a_slot_still_waiting_for_its_copy_is_no_source() -> None:
    """B's slot holds B's prompt only once its restore and its call are done:
    until its restore is done, C (whose prompt shares most with B's) does not
    copy from it, but takes the slot that really holds the record."""
    actions: list[tuple[str, int]] = []
    gate = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        slot = int(request.url.path.rsplit("/", 1)[-1])
        action = request.url.params["action"]
        actions.append((action, slot))
        if action == "restore" and slot == 1:
            await gate.wait()
        return httpx.Response(200, json={"id_slot": slot})

    async def play() -> tuple[int | None, tuple[int, int | None]]:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        r = SlotRouter("http://127.0.0.1:9", 3, http)
        b_text = RECORD + "b: a long tail of its own " * 20

        async def call_b() -> int | None:
            async with r.route(messages(b_text)) as b:
                return b.copied_from

        async with r.route(messages(RECORD + "a")):  # A keeps slot 0 busy
            b_task = asyncio.create_task(call_b())
            for _ in range(10):  # B takes slot 1 and waits for A's call to end
                await asyncio.sleep(0)
            assert r._slots[1].copying and actions == []
        for _ in range(1000):  # A is done: B's restore into slot 1 is under way
            if ("restore", 1) in actions:
                break
            await asyncio.sleep(0)
        assert ("restore", 1) in actions

        async def call_c() -> tuple[int, int | None]:
            async with r.route(messages(b_text + " and c")) as c:
                return c.slot, c.copied_from

        c_route = await call_c()
        gate.set()
        return await b_task, c_route

    # B copied slot 0; C shares most with B's prompt, but slot 1 is no source
    # yet: C takes slot 0 (free again, it holds the record) and copies nothing
    assert asyncio.run(play()) == (0, (0, None))
    assert ("save", 1) not in actions


async def test_a_shared_record_seat_routes_its_calls_without_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sandbox.models.endpoints import Endpoint, Target
    from sandbox.models.providers import provider_class

    monkeypatch.delenv("SANDBOX_LOCAL_ROUTE", raising=False)
    local = Endpoint("openai/smollm2", "http://127.0.0.1:9/v1", provider="local")
    router = provider_class("local")(Target("local/smollm2")).slot_router
    assert router(local) is None  # a seat with its own layout: the server chooses
    assert router(local, wanted=True) is router_for("http://127.0.0.1:9/v1", 12)
    remote = Endpoint("openai/gpt-4o", "https://api.example.invalid/v1")
    remote_router = provider_class("litellm")(Target("openai/gpt-4o")).slot_router
    assert remote_router(remote, wanted=True) is None  # only the embedded server has slots
    monkeypatch.setenv("SANDBOX_LOCAL_ROUTE", "1")
    assert router(local) is not None  # the setting routes every seat's calls
