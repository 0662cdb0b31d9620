"""Resource hygiene: every client, server, socket and thread an LLM-seat game
opens is closed when the game ends (issue 14: open files grew by ~11 per game
until "Too many open files"). 200 games in one process on the built-in fake
provider at zero latency; open file descriptors and threads must come back
to where they were after the first game."""

from __future__ import annotations

import asyncio
import os
import threading

from sandbox.core.game import Game
from sandbox.models import endpoints, pool
from sandbox.session.agent_specs import LLMSpec
from sandbox.session.runner import Runner
from tests.agents.llm.conftest import TOY, make_llm_agent, toy_loaded

GAMES = 200
SLACK = 3  # descriptors or threads a runtime may keep around (e.g. a lazily made selector)


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def play_one(seed: int) -> None:
    """One toy game on the built-in fake (started by the first seat, stopped
    by the last to close), each game on its own event loop as `sandbox run`
    and `batch` play them."""
    spec = LLMSpec(kind="llm", model="fake/legal-random", timeout_s=5.0)
    loaded = toy_loaded(spec, seats=2)  # one round, a few calls: the suite stays fast

    async def go() -> None:
        game = Game.new(TOY, loaded.game_config, seed)
        agents = {s: make_llm_agent(loaded, spec, s, seed) for s in game.seats}
        try:
            await Runner(game, agents, abort_share=None).run()
        finally:
            for agent in agents.values():
                await agent.close()

    asyncio.run(go())


def test_200_games_leave_no_sockets_threads_or_clients_behind() -> None:
    play_one(0)  # imports, the first server: what stays for good
    # Counted from here: clients that earlier tests of the same session left
    # open are theirs, not these games' (the test once failed after test_llm_seat).
    fds, threads, clients = open_fds(), threading.active_count(), pool.open_clients()
    for seed in range(1, GAMES):
        play_one(seed)
    assert endpoints._fake_server is None
    assert pool.open_clients() <= clients, (clients, pool.open_clients())
    assert open_fds() <= fds + SLACK, (fds, open_fds())
    assert threading.active_count() <= threads + SLACK, (threads, threading.active_count())
