"""Drive a browser seat the way its page does: real HTTP on loopback, while the
runner plays the game in another thread."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from collections.abc import Callable, Mapping
from html.parser import HTMLParser
from typing import Any

from sandbox.agents.base import Agent
from sandbox.agents.web import HumanBrowserAgent
from sandbox.core.game import Game
from sandbox.core.variant import Outcome
from sandbox.runner import Runner

WAIT_S = 8.0


class GameThread(threading.Thread):
    """Plays a game to its end like sandbox.session does (agents closed at the end)."""

    def __init__(self, game: Game, agents: Mapping[int, Agent]) -> None:
        super().__init__(daemon=True)
        self.game = game
        self.agents = agents
        self.runner = Runner(game, agents)
        self.outcome: Outcome | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        async def go() -> None:
            try:
                self.outcome = await self.runner.run()
            finally:
                for agent in self.agents.values():
                    await agent.close()

        try:
            asyncio.run(go())
        except BaseException as err:  # reported by finish()
            self.error = err

    def finish(self) -> Outcome:
        self.join(WAIT_S)
        assert not self.is_alive(), "the game did not finish"
        if self.error is not None:
            raise self.error
        assert self.outcome is not None
        return self.outcome


class Client:
    """Speaks to one seat's server with the page's token (or a given one)."""

    def __init__(self, agent: HumanBrowserAgent, token: str | None = None) -> None:
        self.port = agent.port
        self.token = agent.token if token is None else token

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: bool = True,
        host: str | None = None,
    ) -> tuple[int, str]:
        sep = "&" if "?" in path else "?"
        target = f"{path}{sep}t={self.token}" if token else path
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_S)
        try:
            headers = {"Content-Type": "application/json"}
            if host is not None:
                headers["Host"] = host
            data = None if body is None else json.dumps(body).encode()
            conn.request(method, target, body=data, headers=headers)
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8")
        finally:
            conn.close()

    def state(self) -> dict[str, Any]:
        status, text = self.request("GET", "/api/state")
        assert status == 200, text
        parsed: dict[str, Any] = json.loads(text)
        return parsed

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            current = self.state()
            if predicate(current):
                return current
            time.sleep(0.01)
        raise AssertionError(f"the page never reached the wanted state; last: {current}")

    def my_turn(self, other_than: str | None = None) -> dict[str, Any]:
        return self.wait_for(lambda s: s["status"] == "your_turn" and s["request_id"] != other_than)

    def answer(self, request_id: str | None, answer: object) -> tuple[int, dict[str, Any]]:
        status, text = self.request(
            "POST", "/api/answer", {"request": request_id, "answer": answer}
        )
        parsed: dict[str, Any] = json.loads(text)
        return status, parsed


class FormReader(HTMLParser):
    """The decision form as the page would submit it: field → (kind, option values)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, tuple[str, list[object]]] = {}
        self.limits: dict[str, int] = {}
        self._current: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "fieldset" and a.get("data-field"):
            self._current = str(a["data-field"])
            self.fields[self._current] = (str(a.get("data-kind")), [])
        elif self._current is None:
            return
        elif tag == "input" or (tag == "option" and a.get("value")):
            self.fields[self._current][1].append(json.loads(str(a["value"])))
        elif tag == "textarea":
            self.limits[self._current] = int(str(a["maxlength"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "fieldset":
            self._current = None


def read_form(form_html: str) -> FormReader:
    reader = FormReader()
    reader.feed(form_html)
    return reader


def first_legal(form_html: str) -> dict[str, object]:
    """An answer picking the first offered option of every field (empty speech)."""
    answer: dict[str, object] = {}
    for name, (kind, options) in read_form(form_html).fields.items():
        answer[name] = "" if kind == "text" else [] if kind == "multi" else options[0]
    return answer
