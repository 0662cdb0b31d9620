"""Lobby benchmark (issue 38 item 2): one server holding many tables.

Starts a lobby on loopback (in this process), creates TABLES Killer tables
(11 seats: PEOPLE seats open to people, baseline bots on the rest) over HTTP
with the lobby's link, and seats a scripted, browser-less person at each open
seat: it picks the seat in the lobby (POST /lobby/pick), keeps the seat page's
WebSocket open (/ws) and answers each question with its first option (POST
/api/answer), as a page does. Each table starts once its seats are taken.

Reports, for every table's game played to its end:
- push latency: seconds from a seat page's board change (in the game's thread)
  to that page's WebSocket receiving it, p50 / p99 over every state received;
- answer round trip (POST /api/answer, the referee's check on the game loop);
- memory: the process's resident size before the lobby, with every table set
  up and waiting, and at its peak while they play, per table.

Run:  .venv/bin/python bench/bench_lobby.py [--tables 20] [--people 4] [--games 1] [--pace 0]

``--pace 0`` plays every table at full speed at once (the worst case for the
one server: twenty games' referees and bots compete with it for the process);
a person's reading pace (``sandbox serve --pace``, 1.5 s by default) leaves
the games mostly waiting.
No figure is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import websockets.sync.client as ws_client
from bench_web import first_legal  # the answer a scripted page sends

from sandbox.session.gamefile import parse_config
from sandbox.web import board as board_module
from sandbox.web.lobby import Lobby

# When each board version was made (the bench's own record, in this process).
MADE: dict[tuple[int, int], float] = {}
_original_update = board_module.Board.update


def _recording_update(self: Any, **changes: Any) -> None:
    _original_update(self, **changes)
    MADE[(id(self), self.version)] = time.perf_counter()


board_module.Board.update = _recording_update  # type: ignore[method-assign]


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def call(port: int, path: str, body: object = None) -> dict[str, Any]:
    """A JSON request; a 429 (this client spends too fast) is waited out and sent again."""
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        conn.request("GET" if body is None else "POST", path, data, headers)
        response = conn.getresponse()
        text = response.read().decode()
        conn.close()
        if response.status != 429:
            reply: dict[str, Any] = json.loads(text)
            return reply
        time.sleep(0.2)


class Person(threading.Thread):
    """One scripted person at one seat, for ``games`` games: records when each
    pushed state arrived (its board version and the monotonic clock, which is
    the same clock in every process of the machine) and each answer's trip."""

    def __init__(self, port: int, lobby_token: str, table: int, seat: int, games: int) -> None:
        super().__init__(daemon=True)
        self.port, self.lobby_token = port, lobby_token
        self.table, self.seat, self.games = table, seat, games
        self.token = ""
        self.received: list[tuple[int, float]] = []
        self.trips: list[float] = []
        self.error = ""

    def run(self) -> None:
        try:
            self._play()
        except Exception as err:
            self.error = f"{type(err).__name__}: {err}"

    def _play(self) -> None:
        port = self.port
        picked = call(port, f"/lobby/pick?t={self.lobby_token}",
                      {"table": self.table, "seat": self.seat})  # fmt: skip
        token = self.token = picked["token"]
        ended = 0
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws?t={token}", max_size=2**24) as socket:
            last = None
            first = True  # the state sent on connecting is no push: not counted
            while ended < self.games:
                state = json.loads(socket.recv(timeout=600))
                if not first:
                    self.received.append((state["version"], time.perf_counter()))
                first = False
                if state["status"] == "ended":
                    ended += 1
                    last = None
                    continue
                if state["status"] != "your_turn" or state["request_id"] == last:
                    continue
                last = state["request_id"]
                body = json.dumps({"request": last, "answer": first_legal(state["form_html"])})
                sent = time.perf_counter()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request("POST", f"/api/answer?t={token}", body=body)
                conn.getresponse().read()
                conn.close()
                self.trips.append(time.perf_counter() - sent)

    def result(self) -> dict[str, Any]:
        return {"token": self.token, "received": self.received, "trips": self.trips,
                "error": self.error}  # fmt: skip


def people(port: int, lobby_token: str, plan: list[tuple[int, int]], games: int,
           results: Any) -> None:  # fmt: skip
    """Every person of ``plan`` (table, seat) in threads of this process; their
    results put on ``results`` once all are done."""
    crowd = [Person(port, lobby_token, table, seat, games) for table, seat in plan]
    for person in crowd:
        person.start()
    for person in crowd:
        person.join()
    results.put([person.result() for person in crowd])


def cpu_seconds() -> float:
    """CPU seconds used by this process (the server, its tables and games) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--people", type=int, default=4, help="people per table (of 11 seats)")
    parser.add_argument("--games", type=int, default=1, help="games per table (rematches)")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        help="seconds a person's page waits after each event (0: full speed)",
    )
    args = parser.parse_args()
    killer = {"variant": "killer", "rules": {"players": 11}, "default_agent": {"kind": "baseline"}}
    before = rss_mb()
    with tempfile.TemporaryDirectory() as out:
        lobby = Lobby({"killer": parse_config(killer)}, out=Path(out), pace_s=args.pace, seed=1,
                      max_tables=args.tables, announce=lambda line: None)  # fmt: skip
        port, token = lobby.hub.port, lobby.page.token
        seats = list(range(1, args.people + 1))
        numbers = []
        for _ in range(args.tables):
            made = call(port, f"/lobby/create?t={token}",
                        {"game": "killer", "open": seats, "start_when_full": False})  # fmt: skip
            numbers.append(made["table"])
        time.sleep(1.0)  # every table's first game set up and waiting for its start
        set_up = rss_mb()
        plan = [(n, seat) for n in numbers for seat in seats]
        peak = [set_up]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.2):
                peak.append(rss_mb())

        threading.Thread(target=sample, daemon=True).start()
        started = time.perf_counter()
        cpu_before = cpu_seconds()
        # The people run in another process (as browsers would): the server's
        # process holds only the lobby, its tables and their games.
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        crowd = context.Process(target=people, args=(port, token, plan, args.games, results))
        crowd.start()
        deadline = time.monotonic() + 60
        while any(lobby.table(n).free_seats() for n in numbers):
            assert time.monotonic() < deadline, "seats were never taken"
            time.sleep(0.05)
        for n in numbers:  # everyone is in: the hosts start their tables together
            lobby.table(n).start()
        for game in range(1, args.games + 1):
            for n in numbers:
                lobby.table(n).wait(900)
            if game < args.games:
                for n in numbers:
                    lobby.table(n).rematch()
        seated = results.get(timeout=120)
        crowd.join(30)
        wall = time.perf_counter() - started
        cpu = cpu_seconds() - cpu_before
        done.set()
        latencies: list[float] = []
        for person in seated:
            page = lobby.hub.find(person["token"])
            assert page is not None
            for version, at in person["received"]:
                made = MADE.get((id(page.board), version))
                if made is not None:
                    latencies.append(at - made)
        lobby.stop()
    errors = [p["error"] for p in seated if p["error"]]
    trips = [x for p in seated for x in p["trips"]]
    tables = args.tables
    print(f"lobby: {tables} tables x {args.people} people (+{11 - args.people} baseline bots), "
          f"{args.games} game(s) each, pace {args.pace:g} s, one server on loopback, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    games = tables * args.games
    print(
        f"games: {games} in {wall:.1f} s wall, the server's process {cpu:.1f} CPU-s "
        f"({cpu / games:.2f} per game); load average {os.getloadavg()[0]:.1f}; "
        f"errors: {len(errors)} {errors[:2]}"
    )
    print(f"push latency (board change -> seat WebSocket): n={len(latencies)} "
          f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms")  # fmt: skip
    p50, p99 = percentile(trips, 0.5) * 1000, percentile(trips, 0.99) * 1000
    print(
        f"answer round trip (POST /api/answer): n={len(trips)} p50 {p50:.1f} ms, p99 {p99:.1f} ms"
    )
    print(f"memory: {before:.0f} MB before the lobby; {set_up:.0f} MB with {tables} tables set up "
          f"({(set_up - before) / tables:.2f} MB per table); peak {max(peak):.0f} MB while "
          f"playing ({(max(peak) - before) / tables:.2f} MB per table)")  # fmt: skip


if __name__ == "__main__":
    main()
