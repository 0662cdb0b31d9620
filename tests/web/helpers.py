"""Drive the web pages the way a browser does: real HTTP and WebSockets on
loopback, while a game plays in another thread."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.core.variant import Outcome
from sandbox.session import GameRecord, LiveHooks, play_game
from sandbox.session.gamefile import LoadedConfig, parse_config
from sandbox.session.runner import Runner
from sandbox.web.hub import Audience, WebHub
from sandbox.web.run import WebRun

WAIT_S = 15.0


def quiet(line: str) -> None:
    """Tests do not print addresses."""


def other_token(token: str) -> str:
    """A token one character away from ``token`` (never ``token`` itself)."""
    return ("A" if token[0] != "A" else "B") + token[1:]


class GameThread(threading.Thread):
    """Plays a game with a bare Runner (agents closed at the end)."""

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


class SessionThread(threading.Thread):
    """Plays a game file through the session with a web run's hooks (as `sandbox run`)."""

    def __init__(self, loaded: LoadedConfig, seed: int, out: Path, web: WebRun) -> None:
        super().__init__(daemon=True)
        self.loaded, self.seed, self.out, self.web = loaded, seed, out, web
        self.record: GameRecord | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.record = play_game(
                self.loaded, self.seed, self.out, hooks=self.web.hooks(LiveHooks())
            )
        except BaseException as err:  # reported by finish()
            self.error = err

    def finish(self, wait_s: float = WAIT_S) -> GameRecord:
        self.join(wait_s)
        assert not self.is_alive(), "the game did not finish"
        if self.error is not None:
            raise self.error
        assert self.record is not None
        return self.record


def all_ai_killer() -> dict[str, object]:
    return {"variant": "killer", "rules": {"players": 11}, "default_agent": {"kind": "baseline"}}


class PanelGame(threading.Thread):
    """A session game with the host panel; it waits for the panel's Start."""

    def __init__(self, web: WebRun, out: Path, inner: LiveHooks | None = None) -> None:
        super().__init__(daemon=True)
        self.web, self.out = web, out
        self.inner = inner or LiveHooks()  # the terminal's hooks, as `sandbox run` has them
        self.path: Path | None = None

    def run(self) -> None:
        hooks = self.web.hooks(self.inner)
        self.path = play_game(parse_config(all_ai_killer()), 7, self.out, hooks=hooks).path

    def ready(self, host: Client) -> list[dict[str, object]]:
        """The panel's seat rows once the game is set up (and waiting for Start)."""
        state = host.wait_for(lambda s: s["status"] == "ready" and bool(s["seats"]))
        rows: list[dict[str, object]] = state["seats"]
        return rows


@contextmanager
def panel_table(
    out: Path, inner: LiveHooks | None = None
) -> Iterator[tuple[WebRun, PanelGame, Client]]:
    """A host-panel run of an all-AI Killer game, set up and waiting for Start: the
    run, the game's thread and the host's client; the server stopped at the end."""
    web = WebRun(host_panel=True, announce=quiet)
    try:
        game = PanelGame(web, out, inner)
        game.start()
        host = host_client(web)
        game.ready(host)
        yield web, game, host
    finally:
        web.stop()


def host_client(web: WebRun) -> Client:
    panel = web.panel()
    audience = next(a for a in web.hub().audiences() if a.host is panel)
    return Client(web.hub(), audience)


def post(client: Client, path: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    status, text = client.request("POST", path, body)
    reply: dict[str, object] = json.loads(text)
    return status, reply


class Client:
    """Speaks to one audience's pages with its token (or a given one)."""

    def __init__(self, hub: WebHub, audience: Audience | str) -> None:
        self.port = hub.port
        self.token = audience if isinstance(audience, str) else audience.token

    @classmethod
    def of_url(cls, url: str) -> Client:
        client = cls.__new__(cls)
        client.port = int(url.split(":")[2].split("/")[0])
        client.token = url.split("t=")[1]
        return client

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: bool = True,
        host: str | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, str]:
        sep = "&" if "?" in path else "?"
        target = f"{path}{sep}t={self.token}" if token else path
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_S)
        try:
            headers = {"Content-Type": "application/json"}
            if host is not None:
                headers["Host"] = host
            data = raw if raw is not None else None if body is None else json.dumps(body).encode()
            conn.request(method, target, body=data, headers=headers)
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8")
        finally:
            conn.close()

    def headers(self, path: str = "/") -> dict[str, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_S)
        try:
            conn.request("GET", f"{path}?t={self.token}")
            response = conn.getresponse()
            response.read()
            return {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()

    def state(self) -> dict[str, Any]:
        status, text = self.request("GET", "/api/state")
        assert status == 200, text
        parsed: dict[str, Any] = json.loads(text)
        return parsed

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT_S
        current: dict[str, Any] = {}
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


def play_out(client: Client, thread: threading.Thread) -> int:
    """Answer every later question with its first option until the game ends."""
    last: str | None = None
    answered = 0
    while thread.is_alive():
        state = client.state()
        if state["status"] == "your_turn" and state["request_id"] != last:
            last = state["request_id"]
            client.answer(last, first_legal(state["form_html"]))
            answered += 1
        thread.join(0.01)
    return answered


class FormReader(HTMLParser):
    """The decision form as the page would submit it: field → (kind, option values)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, tuple[str, list[object]]] = {}
        self.words: dict[str, list[str]] = {}
        self.limits: dict[str, int] = {}
        self._current: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "fieldset" and a.get("data-field"):
            self._current = str(a["data-field"])
            self.fields[self._current] = (str(a.get("data-kind")), [])
            self.words[self._current] = []
        elif self._current is None:
            return
        elif tag == "input" or (tag == "option" and a.get("value")):
            self.fields[self._current][1].append(json.loads(str(a["value"])))
            if a.get("data-words"):
                self.words[self._current].append(str(a["data-words"]))
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


class SpeechReader(HTMLParser):
    """(speaker, text) of every quoted speech on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.quotes: list[tuple[str, str]] = []
        self._where = ""
        self._who = ""

    @classmethod
    def read(cls, html_text: str) -> list[tuple[str, str]]:
        reader = cls()
        reader.feed(html_text)
        return reader.quotes

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "span" and classes == "who":
            self._where, self._who = "who", ""
        elif tag == "blockquote":
            self._where = "said"
            self.quotes.append((self._who, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("span", "blockquote"):
            self._where = ""

    def handle_data(self, data: str) -> None:
        if self._where == "who":
            self._who += data
        elif self._where == "said":
            who, said = self.quotes[-1]
            self.quotes[-1] = (who, said + data)


class Gate:
    """Holds the game's thread at its next event once closed, until released."""

    def __init__(self) -> None:
        self.closed = False
        self.released = threading.Event()

    def close(self) -> None:
        self.closed = True

    def release(self) -> None:
        self.released.set()

    def on_event(self, game: object, seq: int, event: object) -> None:
        if self.closed:
            self.released.wait(WAIT_S)
