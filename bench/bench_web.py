"""Web seat benchmark: how quickly a person's page follows the game.

Plays Killer games (11 players, baseline bots) with seat 3 in a browser seat
answered by a scripted client over real loopback HTTP, and reports: the
seconds from a board change to a WebSocket receiving it (push latency, 200
changes), the seconds for an answer's round trip (POST /api/answer, checked by
the referee on the game loop), and the games' wall time. Medians and 95th
percentiles.

Run:  .venv/bin/python bench/bench_web.py [--games 5]
No figure is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import websockets.sync.client as ws_client

from sandbox.session import LiveHooks, play_game
from sandbox.session.gamefile import parse_config
from sandbox.web.run import WebRun


def first_legal(form_html: str) -> dict[str, object]:
    import re

    answer: dict[str, object] = {}
    for name, kind in re.findall(r'data-field="(\w+)" data-kind="(\w+)"', form_html):
        if kind == "text":
            answer[name] = "bench"
        elif kind == "multi":
            answer[name] = []
        else:
            value = re.search(rf'name="{name}" value="([^"]*)"', form_html)
            answer[name] = json.loads(value.group(1).replace("&#34;", '"')) if value else None
    return answer


def one_game(seed: int, out: Path) -> tuple[list[float], float]:
    web = WebRun(announce=lambda line: None)
    loaded = parse_config(
        {
            "variant": "killer",
            "rules": {"players": 11},
            "default_agent": {"kind": "baseline"},
            "agent": [{"kind": "human", "seats": [3], "interface": "browser"}],
        }
    )
    started = time.perf_counter()
    game = threading.Thread(
        target=lambda: play_game(loaded, seed, out, hooks=web.hooks(LiveHooks())), daemon=True
    )
    game.start()
    while 3 not in web._seat_pages:
        time.sleep(0.001)
    audience = web._seat_pages[3]
    port = web.hub().port
    trips: list[float] = []
    url = f"ws://127.0.0.1:{port}/ws?t={audience.token}"
    with ws_client.connect(url) as socket:
        last = None
        while True:
            state = json.loads(socket.recv(timeout=30))
            if state["status"] == "ended":
                break
            if state["status"] != "your_turn" or state["request_id"] == last:
                continue
            last = state["request_id"]
            body = json.dumps({"request": last, "answer": first_legal(state["form_html"])})
            sent = time.perf_counter()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", f"/api/answer?t={audience.token}", body=body)
            conn.getresponse().read()
            conn.close()
            trips.append(time.perf_counter() - sent)
    game.join(30)
    web.stop()
    return trips, time.perf_counter() - started


def push_latency(samples: int = 200) -> list[float]:
    """Seconds from a board change (on another thread) to a WebSocket receiving it."""
    from sandbox.web.board import Board
    from sandbox.web.hub import Audience

    web = WebRun(announce=lambda line: None)
    audience = web.hub().add(Audience("watch", Board(n=0), "bench"))
    out: list[float] = []
    with ws_client.connect(f"ws://127.0.0.1:{web.hub().port}/ws?t={audience.token}") as socket:
        socket.recv(timeout=5)
        for i in range(samples):
            changed = time.perf_counter()
            audience.board.update(n=i + 1)
            while json.loads(socket.recv(timeout=5))["n"] != i + 1:
                pass
            out.append(time.perf_counter() - changed)
    web.stop()
    return out


def report(name: str, values: list[float]) -> None:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"{name}: n={len(values)} median {statistics.median(values) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    trips: list[float] = []
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as out:
        for seed in range(args.games):
            game_trips, wall = one_game(seed, Path(out))
            trips += game_trips
            walls.append(wall)
    report("board change -> WebSocket", push_latency())
    report("answer round trip (POST, referee check on the game loop)", trips)
    print(f"games: {len(walls)}, wall median {statistics.median(walls):.2f} s per game")


if __name__ == "__main__":
    main()
