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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.core.events import Event, GameEnded
from sandbox.core.game import Game
from sandbox.core.seat import Agent, RemoteSettings
from sandbox.transcript import TranscriptWriter
from sandbox.web.board import Board
from sandbox.web.control import Switch, SwitchableSeat, has_person, person_of
from sandbox.web.ending import end_screens
from sandbox.web.follow import FULL, PUBLIC, Spectator, Stale
from sandbox.web.guard import LOOPBACK
from sandbox.web.hub import Audience, WebHub, print_to_stderr
from sandbox.web.panel import REFEREE, HostPanel, who
from sandbox.web.remote import RemoteSeat
from sandbox.web.seat import HumanBrowserAgent, seat_audience
from sandbox.web.words import ui

_HUB_LOCK = threading.Lock()
_PANEL_LOCK = threading.Lock()
Announce = Callable[[str], None]


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
    _stale: Stale = field(default_factory=Stale)  # pages to render when the loop turns
    # Seats a person plays or has played in this game (fair play: see seated()).
    _seated: set[int] = field(default_factory=set)
    _seated_lock: threading.Lock = field(default_factory=threading.Lock)
    # Pages of people whose seat was handed back in this game: they follow it as spectators.
    _former: list[HumanBrowserAgent] = field(default_factory=list)

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
        fresh = seat not in self._seat_pages
        audience = self.seat_page(seat, language)
        options = {"decision_timeout_s": timeout_s, "language": language, "pace_s": pace_s}
        agent = self.person_seat(seat, hub, audience=audience, **options)
        if fresh:
            self.announce(f"seat {seat}: open {agent.url}")
        return agent

    def person_seat(
        self, seat: int, hub: WebHub, *, audience: Audience, **options: Any
    ) -> HumanBrowserAgent:
        """The agent behind a person's page (``options``: the seat's keyword
        arguments); a run whose people answer more than the game overrides it."""
        return HumanBrowserAgent(seat, hub, audience=audience, **options)

    def seat_page(self, seat: int, language: str) -> Audience:
        """The page (and token) of a person's ``seat``, made once: every game of
        the run seats its person there (a lobby makes its open seats' pages
        before the first game, so that people can pick them; web/lobby.py)."""
        audience = self._seat_pages.get(seat)
        if audience is None:
            audience = self.hub().add(seat_audience(seat, language))
            self._seat_pages[seat] = audience
        return audience

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

        # This run is the host that seats the game: its browser and remote seats
        # get their pages and endpoints from it (passed in, never looked up).
        return dataclasses.replace(inner, on_event=on_event, seat_agents=seat_agents, host=self)

    def seat_agents(
        self, game: Game, agents: dict[int, Agent], writer: TranscriptWriter
    ) -> dict[int, Agent]:
        """Called by the session once per game, before the transcript header."""
        self._game, self._writer, self._playing = game, writer, False
        self._stale.reset()
        with self._seated_lock:
            self._seated = set()
        self._former = []
        if self.host_panel:
            agents = {
                seat: SwitchableSeat(seat, agent, self._record_switch, self.pace_s)
                for seat, agent in agents.items()
            }
            self.panel().seats = {s: a for s, a in agents.items() if isinstance(a, SwitchableSeat)}
            self.panel().refresh()
        self._seats = dict(agents)
        for agent in agents.values():
            person = person_of(agent)
            if person is not None:
                person.rules_text = self.rules_for(person.language)
        if not self._spectators and self.watch:
            for target in self.watch:
                self.announce(f"spectators ({who(target)}): {self.spectate(target)}")
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
                self._stale.spectator(spectator)
        shown_to = [p for p in self.people() if event.visibility().visible_to(p.seat)]
        for person in shown_to + [p for p in self._former if p not in shown_to]:
            if event.visibility().visible_to(person.seat):
                self._stale.person(person)
        if isinstance(event, GameEnded):
            self._render_stale()
            people = self.people()
            end_screens(game, people, self._former, self._spectators, self._remotes, self.language)
        else:
            self._stale.render_soon(self._render_stale)
        if self._panel is not None:
            self._panel.refresh()
        self._pace(event, shown_to)

    def _render_stale(self) -> None:
        """The pages the events since the last call changed, each rendered once
        (on the game's loop: the views are the game's; see web/follow.py)."""
        game = self._game
        people, spectators = self._stale.take()
        if game is None:
            return
        for person in people:
            spectating = person.watching and person not in self.people()
            if spectating and self.allowed(person.seat) != FULL:
                continue  # another person plays: the seat's view could help them
            person.follow(game.view(person.seat))
        for spectator in spectators:
            spectator.refresh(game, self.language)

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
            self._render_stale()  # the person reads this event during the wait
            self.sleep(pace)

    def people(self) -> list[HumanBrowserAgent]:
        """The browser seats of this game's people, including one the host just
        handed a seat to (it follows the game before its first decision)."""
        found = []
        for agent in self._seats.values():
            person = agent.person if isinstance(agent, SwitchableSeat) else person_of(agent)
            if person is not None:
                found.append(person)
        return found

    def show_now(self, person: HumanBrowserAgent) -> None:
        """A seat just handed to a person: its page shows the seat's view at once,
        not at its next decision."""
        game = self._game
        if game is not None:
            self._on_game_loop(lambda: person.follow(game.view(person.seat)))

    def handed_back(self, person: HumanBrowserAgent) -> None:
        """The host gave ``person``'s seat to an AI: the page keeps following the
        seat as its spectator (and shows the end screen as one: "Seat 3 won")."""
        person.watching = True
        if person not in self._former:
            self._former.append(person)
        self.seating_changed()

    def _on_game_loop(self, work: Callable[[], None]) -> None:
        """``work`` (which reads the game) on the game's loop, never beside the
        game's own work — or here while the first game waits for the host's Start
        or no game plays, when nothing else runs."""
        loop, panel = self._loop, self._panel
        waiting = panel is not None and not panel.started.is_set()
        if waiting or loop is None or loop.is_closed():
            work()
            return
        with contextlib.suppress(RuntimeError):  # the loop closed in between
            loop.call_soon_threadsafe(work)

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
        return bool(self.seated())

    def seated(self) -> frozenset[int]:
        """The seats a person plays, is about to play, or has played in this game
        (a person handed back may be handed the seat again: what they see meanwhile
        must not help them); none once the game is over (nothing can help anyone)."""
        game = self._game
        if game is not None and game.over:
            return frozenset()
        now = {seat for seat, agent in self._seats.items() if has_person(agent)}
        with self._seated_lock:
            self._seated |= now
            return frozenset(self._seated)

    def allowed(self, target: int | None) -> str:
        """What a spectator page of ``target`` (None: the referee) may show now:
        everything, unless a person plays a seat it could help — then only what
        every seat is told (fair play; asked at every push, web/follow.py)."""
        others = self.seated() - ({target} if target is not None else set())
        return PUBLIC if others else FULL

    def narrowed(self, target: int | None) -> bool:
        """Whether a stream of ``target`` (the host's terminal too) is narrowed now."""
        return self.allowed(target) != FULL

    def seating_changed(self) -> None:
        """A person took a seat (or was handed one back): every spectator page is
        checked again at once — a page that may no longer show what it shows is
        withheld by the server (its board is poked) and rendered again, narrowed."""
        for spectator in self._spectators:
            spectator.audience.board.update(scope_check=spectator.audience.board.version)
        self._on_game_loop(self._refresh_spectators)

    def _refresh_spectators(self) -> None:
        game = self._game
        if game is not None:
            for spectator in self._spectators:
                spectator.refresh(game, self.language)

    def spectate(self, target: str) -> str:
        """A new spectator page of ``target`` (a seat number or 'referee'); its URL."""
        seat = None if target == REFEREE else _seat_number(target, sorted(self._seats))
        title = ui(self.language)["watching"].format(who=who(target))
        audience = Audience("watch", Board(status="watching", title=title), title, self.language)
        spectator = Spectator(seat, audience, self.allowed)
        audience.vet = spectator.vet  # checked at every push: see web/follow.py
        self.hub().add(audience)
        self._spectators.append(spectator)
        game = self._game
        if game is not None:
            self._on_game_loop(lambda: spectator.refresh(game, self.language))
        return self.hub().url(audience)

    # ------------------------------------------------------------ the panel
    def panel(self) -> HostPanel:
        """The run's one host panel (the game's thread and a caller's may both
        come first: made under a lock, so there is never a second panel)."""
        with _PANEL_LOCK:
            if self._panel is None:
                panel = HostPanel(self)
                audience = Audience(
                    "host", panel.board, ui(self.language)["host_panel"], self.language
                )
                audience.host = panel
                self.hub().add(audience)
                self._panel = panel
                self.announce(f"host panel: {self.hub().url(audience)}")
            return self._panel


# ---------------------------------------------------------------- helpers


def _seat_number(target: str, seats: Sequence[int]) -> int:
    try:
        seat = int(target)
    except ValueError:
        raise ValueError(f"watch: '{target}' is not a seat number or 'referee'") from None
    if seats and seat not in seats:
        raise ValueError(f"watch: seat {seat} out of range; seats: {seats[0]}..{seats[-1]}")
    return seat


__all__ = ["REFEREE", "HostPanel", "Spectator", "WebRun"]
