"""The host panel: hand a seat to a person or back to its AI, make spectator
links. It lists seats and controllers only, never roles.

Two host pages may act on one seat at once, and the game may be asking that
seat at the same moment. The panel's actions are serialised by a lock, each
checks the seat's state as it is *now* (so the second "take" of a seat gets the
same person's page, and the second "hand back" is refused in one line), and a
switch reaches the seat through :class:`~sandbox.web.control.SwitchableSeat`,
which the game loop reads under its own lock.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Protocol

from sandbox.agents.baseline import baseline_bot_or_none
from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.seat import Agent, Seating, seat_seed
from sandbox.web.board import Board
from sandbox.web.control import SwitchableSeat
from sandbox.web.hub import WebHub
from sandbox.web.seat import HumanBrowserAgent, seat_audience
from sandbox.web.words import ui


class RunSide(Protocol):
    """What the panel needs of the run (``sandbox.web.run.WebRun`` is one): the
    panel is the run's part, so it names these instead of importing the run back."""

    language: str
    _game: Game | None

    def hub(self, port: int | None = None) -> WebHub: ...
    def humans_playing(self) -> bool: ...
    def rules_for(self, language: str) -> str | None: ...
    def show_now(self, person: HumanBrowserAgent) -> None: ...
    def seating_changed(self) -> None: ...
    def handed_back(self, person: HumanBrowserAgent) -> None: ...
    def spectate(self, target: str) -> str: ...


REFEREE = "referee"
# Whom the host may hand a person's seat to (a configured person means the bot).
HAND_BACK_TO = ("configured", "baseline", "random")


class HostPanel:
    """The host's actions on the run's seats (see the module's docstring)."""

    def __init__(self, run: RunSide) -> None:
        self.run = run
        self.board = Board(seats=[], links=[], status="ready")
        self.seats: dict[int, SwitchableSeat] = {}
        self.links: list[dict[str, str]] = []
        self._lock = threading.RLock()
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
        """The page of the person who plays ``seat`` from its next decision on (a
        new one unless a person already plays it or is about to)."""
        with self._lock:
            switchable = self._seat(seat)
            if self.run._game is not None and self.run._game.over:
                raise ValueError(f"the game is over: seat {seat} can no longer be taken")
            person = switchable.person
            if person is None:
                person = HumanBrowserAgent(
                    seat, self.run.hub(), audience=seat_audience(seat, self.run.language),
                    language=self.run.language,
                )  # fmt: skip
                person.rules_text = self.run.rules_for(person.language)
                game = self.run._game
                if game is not None:
                    person.attach(Seating(seat, game.seed, game.variant))
                switchable.switch_to(person)
                # fair play: spectator pages narrow before the person sees anything
                self.run.seating_changed()
                self.run.show_now(person)  # the seat's view at once, not at its next decision
            self.refresh()
            return person.url

    def hand_back(self, seat: int, to: str = "configured") -> None:
        """Give a person's seat to an AI: its configured agent (when that is an AI),
        else (or when named) a baseline bot or a random seat."""
        with self._lock:
            switchable = self._seat(seat)
            if switchable.person is None:
                now = _controller_words(switchable.next_controller().describe())
                raise ValueError(f"seat {seat} is not played by a person (it is {now})")
            person = switchable.person
            switchable.switch_to(self._ai(switchable, to))
            if person is not None:
                self.run.handed_back(person)  # its page keeps following the seat
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
        bot = baseline_bot_or_none(game.variant, seed)
        return bot if bot is not None else RandomAgent(seed)  # a variant without a bot

    def watch(self, target: str) -> str:
        if target == REFEREE and self.run.humans_playing():
            raise ValueError(
                "a person plays in this game: the referee's view would help them; "
                "start the run with --watch referee to allow it"
            )
        with self._lock:
            url = self.run.spectate(target)
            self.links.append({"label": ui(self.run.language)["watching"].format(who=who(target)),
                               "url": url})  # fmt: skip
            self.refresh()
            return url

    def refresh(self) -> None:
        """The panel's board from the seats as they are now; nothing is pushed to
        the host's pages when nothing changed (the run calls this after every event)."""
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
        self.board.update(seats=rows, links=list(self.links), status=status)


def _controller_words(described: Mapping[str, Any]) -> str:
    kind = str(described.get("kind", "?"))
    extra = described.get("interface") or described.get("model")
    return f"{kind} ({extra})" if extra else kind


def who(target: str) -> str:
    return "the referee's view" if target == REFEREE else f"seat {target}"
