"""Everything web for one ``sandbox run``: the server, the seats' pages (kept
from game to game of a series), the host panel and the spectators.

The run sees the game only through the session's hooks: it builds pages from
seat views (and, for a referee spectator or the end screen, from what the
referee announces once the game is over). The pages' server gets boards, never
the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.agents.base import Agent, seat_seed
from sandbox.agents.baseline import baseline_bot_or_none
from sandbox.agents.simple import RandomAgent
from sandbox.core.events import Event, GameEnded
from sandbox.core.game import Game
from sandbox.games.words import role_words, words_for
from sandbox.transcript import TranscriptWriter
from sandbox.web.board import Board
from sandbox.web.control import Switch, SwitchableSeat
from sandbox.web.hub import LOOPBACK, Audience, WebHub, print_to_stderr
from sandbox.web.pages import (
    Entry,
    SeatResult,
    entry_of,
    render_end,
    render_entries,
    render_final,
    render_view,
)
from sandbox.web.remote import RemoteSeat, RemoteSettings
from sandbox.web.seat import HumanBrowserAgent, seat_audience
from sandbox.web.words import ui

REFEREE = "referee"
# Whom the host may hand a person's seat to (a configured person means the bot).
HAND_BACK_TO = ("configured", "baseline", "random")
_HUB_LOCK = threading.Lock()
Announce = Callable[[str], None]


@dataclass
class Spectator:
    """A read-only live page of one seat's view (or the referee's)."""

    target: int | None  # None: the referee
    audience: Audience


@dataclass
class WebRun:
    """The web side of one run. ``host``: where to listen (loopback by default)."""

    host: str = LOOPBACK
    port: int | None = None
    host_panel: bool = False
    watch: Sequence[str] = ()
    pace_s: float = 0.0
    language: str = "en"
    announce: Announce = print_to_stderr
    sleep: Callable[[float], None] = time.sleep  # the pace's wait (tests count them)
    _hub: WebHub | None = None
    _seat_pages: dict[int, Audience] = field(default_factory=dict)
    _game: Game | None = None
    _seats: dict[int, Agent] = field(default_factory=dict)
    _spectators: list[Spectator] = field(default_factory=list)
    _panel: HostPanel | None = None
    _writer: TranscriptWriter | None = None
    _remotes: list[RemoteSeat] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None  # the game's, while it plays
    _playing: bool = False  # a decision was made: setup is over, the pace applies

    # ------------------------------------------------------------ the server
    def hub(self, port: int | None = None) -> WebHub:
        with _HUB_LOCK:  # the game thread and a page request may both come first
            return self._start_hub(port)

    def _start_hub(self, port: int | None) -> WebHub:
        if self._hub is None:
            self._hub = WebHub(self.host, port or self.port or 0)
            if self.host not in (LOOPBACK, "localhost"):
                self.announce(
                    f"warning: the game's pages listen on {self.host}:{self._hub.port}, "
                    "reachable from other machines; anyone with a link can use it"
                )
        return self._hub

    def stop(self) -> None:
        if self._hub is not None:
            self._hub.stop()

    def wait_for_end_screens(self) -> None:
        """Keep the end screens up until the person at the terminal presses Enter."""
        if self._hub is None or not self._seat_pages or not sys.stdin.isatty():
            return
        self.announce("The game is over; the pages show the end screen. Press Enter to close.")
        with contextlib.suppress(KeyboardInterrupt, EOFError):
            sys.stdin.readline()

    # ------------------------------------------------------------ seats
    def browser_agent(
        self,
        seat: int,
        port: int | None,
        timeout_s: float | None,
        language: str,
        pace_s: float = 0.0,
    ) -> HumanBrowserAgent:
        """A person's seat; the same page (address) serves every game of a series."""
        hub = self.hub(port)
        audience = self._seat_pages.get(seat)
        fresh = audience is None
        if audience is None:
            audience = hub.add(seat_audience(seat, language))
            self._seat_pages[seat] = audience
        agent = HumanBrowserAgent(
            seat,
            hub,
            audience=audience,
            decision_timeout_s=timeout_s,
            language=language,
            pace_s=pace_s,
        )
        if fresh:
            self.announce(f"seat {seat}: open {agent.url}")
        return agent

    def remote_agent(
        self,
        seat: int,
        port: int | None,
        token: str | None,
        settings: RemoteSettings,
        language: str,
    ) -> RemoteSeat:
        """A seat played by a program over a WebSocket (web/remote.py)."""
        agent = RemoteSeat(seat, self.hub(port), token=token, settings=settings, language=language)
        agent.on_close = self._remotes.remove
        self._remotes.append(agent)
        shown = agent.url if token is None else agent.url.split("?")[0] + "?t=<your token>"
        self.announce(f"seat {seat} (remote program): connect to {shown}")
        return agent

    # ------------------------------------------------------------ hooks
    def hooks(self, inner: Any) -> Any:
        """The session's hooks (a ``sandbox.session.LiveHooks``, not imported here so
        that the seat layer never imports the session layer back) with this run's
        pages fed as the game goes."""

        def on_event(game: Game, seq: int, event: Event) -> None:
            inner.on_event(game, seq, event)
            self.on_event(game, seq, event)

        def seat_agents(
            game: Game, agents: dict[int, Agent], writer: TranscriptWriter
        ) -> dict[int, Agent]:
            return self.seat_agents(game, inner.seat_agents(game, agents, writer), writer)

        return dataclasses.replace(inner, on_event=on_event, seat_agents=seat_agents)

    def seat_agents(
        self, game: Game, agents: dict[int, Agent], writer: TranscriptWriter
    ) -> dict[int, Agent]:
        """Called by the session once per game, before the transcript header."""
        self._game, self._writer, self._playing = game, writer, False
        if self.host_panel:
            agents = {
                seat: SwitchableSeat(seat, agent, self._record_switch, self.pace_s)
                for seat, agent in agents.items()
            }
            self.panel().seats = {s: a for s, a in agents.items() if isinstance(a, SwitchableSeat)}
            self.panel().refresh()
        self._seats = dict(agents)
        for agent in agents.values():
            person = _person_of(agent)
            if person is not None:
                person.rules_text = self.rules_for(person.language)
        if not self._spectators and self.watch:
            for target in self.watch:
                self.announce(f"spectators ({_who(target)}): {self.spectate(target)}")
        return agents

    def on_event(self, game: Game, seq: int, event: Event) -> None:
        self._game = game
        with contextlib.suppress(RuntimeError):  # called off the game loop: no loop
            self._loop = asyncio.get_running_loop()
        if seq == 0 and self._panel is not None:
            self._panel.refresh()
            self._panel.wait_for_start()
        for spectator in self._spectators:
            if spectator.target is None or event.visibility().visible_to(spectator.target):
                self._refresh_spectator(spectator)
        shown_to = [p for p in self.people() if event.visibility().visible_to(p.seat)]
        if isinstance(event, GameEnded):
            self._end_screens(game)
        else:
            for person in shown_to:
                person.follow(game.view(person.seat))
        if self._panel is not None:
            self._panel.refresh()
        self._pace(event, shown_to)

    def _pace(self, event: Event, shown_to: Sequence[HumanBrowserAgent]) -> None:
        """Wait after an event a person's page shows, so that the game goes at
        reading speed (each seat's ``pace_s``; the setup and the engine's own
        bookkeeping are not paced). The game's steps are all answered when their
        events are flushed here, so the wait holds up no seat's thinking."""
        if event.kind == "core.decision":
            self._playing = True
        if not self._playing or event.kind.startswith("core."):
            return
        pace = max((p.pace_s for p in shown_to), default=0.0)
        if pace > 0:
            self.sleep(pace)

    def people(self) -> list[HumanBrowserAgent]:
        """The browser seats of this game's people, including one the host just
        handed a seat to (it follows the game before its first decision)."""
        found = []
        for agent in self._seats.values():
            person = agent.person if isinstance(agent, SwitchableSeat) else _person_of(agent)
            if person is not None:
                found.append(person)
        return found

    def show_now(self, person: HumanBrowserAgent) -> None:
        """A seat just handed to a person: its page shows the seat's view at once,
        computed on the game's loop (never beside the game's own work) — or here
        while the first game waits for the host's Start and nothing else runs."""
        game, loop, panel = self._game, self._loop, self._panel
        if game is None:
            return
        waiting = panel is not None and not panel.started.is_set()
        if waiting or loop is None or loop.is_closed():
            person.follow(game.view(person.seat))
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between
            loop.call_soon_threadsafe(lambda: person.follow(game.view(person.seat)))

    def _record_switch(self, switch: Switch) -> None:
        if self._writer is not None:
            self._writer.control({"seq": self._writer.next_seq, **switch.to_json()})
        if self._panel is not None:
            self._panel.refresh()

    def rules_for(self, language: str) -> str | None:
        """The rules text a model seat gets, in ``language`` (None before a game)."""
        game = self._game
        if game is None:
            return None
        try:
            return game.variant.rules_text(game.config, language)
        except ValueError:  # a variant without that language: the default text
            return None

    # ------------------------------------------------------------ spectators
    def humans_playing(self) -> bool:
        return any(_has_person(agent) for agent in self._seats.values())

    def spectate(self, target: str) -> str:
        """A new spectator page of ``target`` (a seat number or 'referee'); its URL."""
        seat = None if target == REFEREE else _seat_number(target, sorted(self._seats))
        who = _who(target)
        title = ui(self.language)["watching"].format(who=who)
        audience = Audience("watch", Board(status="watching", title=title), title, self.language)
        spectator = Spectator(seat, audience)
        self.hub().add(audience)
        self._spectators.append(spectator)
        self._refresh_spectator(spectator)
        return self.hub().url(audience)

    def _refresh_spectator(self, spectator: Spectator) -> None:
        game = self._game
        if game is None:
            return
        if spectator.target is None:
            html = render_entries(referee_entries(game, self.language), self.language)
        else:
            html = render_view(game.view(spectator.target), self.language)
        spectator.audience.board.update(view_html=html, status_text=spectator.audience.title)

    # ------------------------------------------------------------ the end
    def _end_screens(self, game: Game) -> None:
        outcome = game.outcome()
        if outcome is None:
            return
        roles = game.roles()  # the game is over: every role may be shown
        for remote in self._remotes:  # closed seats of earlier games have left the list
            remote.finish(_remote_results(outcome.summary, outcome.results, roles))
        variant = game.variant.name
        for person in self.people():
            if person.board.get("status") == "handed_back":
                continue  # no longer this person's seat: the page keeps its notice
            final = render_final(game.view(person.seat), person.language)
            results = _results(outcome.results, roles, person.seat, variant, person.language)
            person.finish(render_end(outcome.summary, results, person.language), final)
        for spectator in self._spectators:
            self._refresh_spectator(spectator)
            results = _results(outcome.results, roles, spectator.target, variant, self.language)
            spectator.audience.board.update(
                status="ended", end_html=render_end(outcome.summary, results, self.language)
            )

    # ------------------------------------------------------------ the panel
    def panel(self) -> HostPanel:
        if self._panel is None:
            self._panel = HostPanel(self)
            audience = Audience(
                "host", self._panel.board, ui(self.language)["host_panel"], self.language
            )
            audience.host = self._panel
            self.hub().add(audience)
            self.announce(f"host panel: {self.hub().url(audience)}")
        return self._panel


class HostPanel:
    """The host's actions: hand a seat to a person or back to its AI, make
    spectator links. It lists seats and controllers only, never roles."""

    def __init__(self, run: WebRun) -> None:
        self.run = run
        self.board = Board(seats=[], links=[], status="ready")
        self.seats: dict[int, SwitchableSeat] = {}
        self.links: list[dict[str, str]] = []
        # The first game waits for the host's "Start", so seats can be handed to
        # people before anyone plays; later games of a series start at once.
        self.started = threading.Event()

    def start(self) -> None:
        self.started.set()
        self.refresh()

    def wait_for_start(self) -> None:
        while not self.started.wait(0.5):  # short waits: Ctrl-C still stops the run
            pass

    def _seat(self, seat: int) -> SwitchableSeat:
        if seat not in self.seats:
            raise KeyError(f"no seat {seat}; seats: 1..{len(self.seats)}")
        return self.seats[seat]

    def take(self, seat: int) -> str:
        switchable = self._seat(seat)
        person = switchable.person
        if person is None:
            person = HumanBrowserAgent(
                seat, self.run.hub(), audience=seat_audience(seat, self.run.language),
                language=self.run.language,
            )  # fmt: skip
            person.rules_text = self.run.rules_for(person.language)
            game = self.run._game
            if game is not None:
                person.attach(seat, game.seed, game.variant.name)
            switchable.switch_to(person)
            self.run.show_now(person)  # the seat's view at once, not at its next decision
        self.refresh()
        return person.url

    def hand_back(self, seat: int, to: str = "configured") -> None:
        """Give a person's seat to an AI: its configured agent (when that is an AI),
        else (or when named) a baseline bot or a random seat."""
        switchable = self._seat(seat)
        if switchable.person is None:
            raise ValueError(f"seat {seat} is not played by a person")
        switchable.switch_to(self._ai(switchable, to))
        self.refresh()

    def _ai(self, switchable: SwitchableSeat, to: str) -> Agent:
        if to not in HAND_BACK_TO:
            raise ValueError(f"hand back to {to!r}? allowed: {', '.join(HAND_BACK_TO)}")
        if to == "configured" and switchable.configured.kind != "human":
            return switchable.configured
        game = self.run._game
        if game is None:
            raise ValueError("no game is under way")
        seed = seat_seed(game.seed, switchable.seat)
        if to == "random":
            return RandomAgent(seed)
        bot = baseline_bot_or_none(game.variant.name, seed)
        return bot if bot is not None else RandomAgent(seed)  # a variant without a bot

    def watch(self, target: str) -> str:
        if target == REFEREE and self.run.humans_playing():
            raise ValueError(
                "a person plays in this game: the referee's view would help them; "
                "start the run with --watch referee to allow it"
            )
        url = self.run.spectate(target)
        self.links.append({"label": ui(self.run.language)["watching"].format(who=_who(target)),
                           "url": url})  # fmt: skip
        self.refresh()
        return url

    def refresh(self) -> None:
        rows = []
        for seat, switchable in sorted(self.seats.items()):
            person = switchable.person
            upcoming = switchable.upcoming
            rows.append(
                {
                    "seat": seat,
                    "controller": _controller_words(switchable.current.describe()),
                    "switch_to": _controller_words(upcoming.describe()) if upcoming else "",
                    "can_take": person is None,
                    "can_return": person is not None,
                    "url": person.url if person is not None else "",
                }
            )
        game = self.run._game
        status = "ready" if not self.started.is_set() else "playing"
        if game is not None and game.over:
            status = "ended"
        self.board.update(seats=rows, links=list(self.links), status=status, status_text=status)


# ---------------------------------------------------------------- helpers


def referee_entries(game: Game, language: str) -> list[Entry]:
    """Every event in the one words renderer's sentences (a referee spectator's page)."""
    entries = []
    for seq, event in game.visible_events(None):
        data = event.to_json()
        words = words_for(game.variant.name, data["kind"], data["data"], language)
        entry = entry_of(seq, words)
        if entry is not None:
            entries.append(entry)
    return entries


def _results(
    results: Mapping[int, str],
    roles: Mapping[int, str],
    mine: int | None,
    variant: str,
    language: str,
) -> list[SeatResult]:
    return [
        SeatResult(seat, role_words(roles.get(seat, "?"), language, variant), result, seat == mine)
        for seat, result in sorted(results.items())
    ]


def _remote_results(
    summary: str, results: Mapping[int, str], roles: Mapping[int, str]
) -> dict[str, Any]:
    """The end of a game for a remote program: every seat's role and result."""
    return {
        "summary": summary,
        "results": {str(s): r for s, r in sorted(results.items())},
        "roles": {str(s): r for s, r in sorted(roles.items())},
    }


def _person_of(agent: Agent) -> HumanBrowserAgent | None:
    if isinstance(agent, HumanBrowserAgent):
        return agent
    if isinstance(agent, SwitchableSeat) and isinstance(agent.current, HumanBrowserAgent):
        return agent.current
    return None


def _has_person(agent: Agent) -> bool:
    if isinstance(agent, SwitchableSeat):
        return agent.person is not None or agent.configured.kind == "human"
    return agent.kind == "human"


def _controller_words(described: Mapping[str, Any]) -> str:
    kind = str(described.get("kind", "?"))
    extra = described.get("interface") or described.get("model")
    return f"{kind} ({extra})" if extra else kind


def _who(target: str) -> str:
    return "the referee's view" if target == REFEREE else f"seat {target}"


def _seat_number(target: str, seats: Sequence[int]) -> int:
    try:
        seat = int(target)
    except ValueError:
        raise ValueError(f"watch: '{target}' is not a seat number or 'referee'") from None
    if seats and seat not in seats:
        raise ValueError(f"watch: seat {seat} out of range; seats: {seats[0]}..{seats[-1]}")
    return seat


# The run the CLI set up; a browser seat built outside the CLI (a test, a script)
# gets a default loopback run of its own.
_CURRENT: WebRun | None = None


def current_run() -> WebRun:
    global _CURRENT
    if _CURRENT is None:
        _CURRENT = WebRun()
    return _CURRENT


def start_run(run: WebRun) -> WebRun:
    global _CURRENT
    _CURRENT = run
    return run


def end_run() -> None:
    global _CURRENT
    if _CURRENT is not None:
        _CURRENT.stop()
    _CURRENT = None


__all__ = ["REFEREE", "HostPanel", "Spectator", "WebRun", "current_run", "end_run", "start_run"]
