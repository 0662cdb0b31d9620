"""A small client for remote seats (docs/remote-agents.md), and a command to try one.

    python -m sandbox.web.client 'ws://127.0.0.1:PORT/agent?t=TOKEN' --policy random

``RemoteClient(url).play(policy)`` connects (retrying while the run starts),
answers every observation with ``policy(observation, refusal)`` (``refusal``:
the referee's message when the last answer was refused, else None) and returns
the ``game_over`` message. A policy is any function; ``random_move`` answers
with a legal move picked from the observation's ``moves``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect
from websockets.sync.connection import Connection

Policy = Callable[[dict[str, Any], str | None], Any]
CONNECT_RETRY_S = 0.1


class RemoteClient:
    def __init__(self, url: str, *, connect_timeout_s: float = 30.0) -> None:
        self.url = url
        self.connect_timeout_s = connect_timeout_s
        self.messages: list[dict[str, Any]] = []  # everything the server sent, in order

    def connect(self) -> ClientConnection:
        """A connection, retried until the run's server answers (or the timeout)."""
        deadline = time.monotonic() + self.connect_timeout_s
        while True:
            try:
                return connect(self.url, open_timeout=5, max_size=2**22)
            except (OSError, InvalidHandshake):
                if time.monotonic() > deadline:
                    raise
                time.sleep(CONNECT_RETRY_S)

    def play(self, policy: Policy) -> dict[str, Any] | None:
        """Answer until the game is over; the ``game_over`` message (None if the
        server closed without one)."""
        with self.connect() as socket:
            return self.serve(socket, policy)

    def serve(self, socket: Connection, policy: Policy) -> dict[str, Any] | None:
        last: dict[str, Any] | None = None
        try:
            for raw in socket:
                message: dict[str, Any] = json.loads(raw)
                self.messages.append(message)
                kind = message.get("type")
                if kind == "observation":
                    last = message
                    self.answer(socket, message, policy(message["observation"], None))
                elif kind == "refused" and last is not None and message.get("attempts_left", 0) > 0:
                    self.answer(socket, last, policy(last["observation"], message["error"]))
                elif kind == "game_over":
                    return message
        except ConnectionClosed:
            pass
        return None

    @staticmethod
    def answer(socket: Connection, observation: dict[str, Any], answer: Any) -> None:
        request_id = observation["request_id"]
        socket.send(json.dumps({"type": "answer", "request_id": request_id, "answer": answer}))


def random_move(seed: int = 0) -> Policy:
    """A policy answering with a legal move drawn from the observation's ``moves``."""
    rng = random.Random(seed)

    def policy(observation: dict[str, Any], refusal: str | None) -> Any:
        moves = observation.get("moves") or [{}]
        return rng.choice(moves)

    return policy


def first_move(observation: dict[str, Any], refusal: str | None) -> Any:
    return (observation.get("moves") or [{}])[0]


def garbage(observation: dict[str, Any], refusal: str | None) -> Any:
    return {"nonsense": True}


POLICIES: dict[str, Callable[[int], Policy]] = {
    "random": random_move,
    "first": lambda seed: first_move,
    "garbage": lambda seed: garbage,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the address the run announced (ws://...?t=TOKEN)")
    parser.add_argument("--policy", choices=sorted(POLICIES), default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--connect-timeout", type=float, default=30.0, help="seconds to keep trying to connect"
    )
    args = parser.parse_args(argv)
    try:
        client = RemoteClient(args.url, connect_timeout_s=args.connect_timeout)
        result = client.play(POLICIES[args.policy](args.seed))
    except (OSError, InvalidHandshake) as err:
        print(f"error: cannot connect to the remote seat: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if result is None:
        print("the server closed the connection before the game ended", file=sys.stderr)
        return 1
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
