"""One table of the lobby (issue 38 item 2): a game file seated with people on
its open seats and AI players on the rest, played game after game (a rematch
keeps the people and draws a new seed) on the lobby's one server.

A table is a :class:`~sandbox.web.run.WebRun` with a host panel, so everything
a run's pages do holds here unchanged: a token per seat page and one for the
host, the referee's dry run, fallbacks for a person who left or ran out of
time, take-over and hand-back, and fair play for spectators. The table only
adds who holds each open seat, when the first game starts and the rematch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sandbox.core.errors import ConfigError
from sandbox.session import LiveHooks, play_game, random_seed
from sandbox.session.gamefile import LoadedConfig, parse_config
from sandbox.web.audience import Audience
from sandbox.web.hub import WebHub
from sandbox.web.run import WebRun

# Who plays the seats not open to people: as the game file says (its people
# and programs become baseline bots), or one kind for all of them.
AI_KINDS = ("file", "baseline", "random")
WAITING_TO_START, PLAYING, ENDED, FAILED, CLOSED = "waiting", "playing", "ended", "failed", "closed"
# A person's page waits this long for an answer, then the referee's fallback:
# a person who closed the tab must not hold the table for ever.
DEFAULT_TIMEOUT_S = 300.0
MAX_TIMEOUT_S = 86400.0


class TableError(ValueError):
    """A request the table refuses (one line), with the HTTP status to answer."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class TableSettings:
    """What the host chose: the game file, its seat count, which seats are open
    to people, who plays the others, a time limit per decision, and whether
    the table starts by itself once every open seat is taken."""

    game: str
    open_seats: tuple[int, ...]
    players: int | None = None
    ai: str = "baseline"
    timeout_s: float | None = None
    start_when_full: bool = True


def table_config(loaded: LoadedConfig, settings: TableSettings, pace_s: float) -> LoadedConfig:
    """``loaded`` with the host's choices: its seat count, a browser person on
    each open seat (last entry, so it wins over any selector of the file) and
    the chosen AI on the others. ConfigError (one line) when they do not fit."""
    raw: dict[str, Any] = loaded.to_json()
    raw.pop("seed", None)  # a table draws its seeds
    if settings.players is not None:
        raw["rules"] = {**raw.get("rules", {}), "players": settings.players}
    if settings.ai not in AI_KINDS:
        raise ConfigError(f"ai: {settings.ai!r} is not one of {', '.join(AI_KINDS)}")
    if settings.ai == "file":
        raw["agent"] = [a for a in raw.get("agent", []) if not _needs_more(a)]
        if _needs_more(raw.get("default_agent", {})):
            raw["default_agent"] = {"kind": "baseline"}
    else:
        raw["agent"], raw["default_agent"] = [], {"kind": settings.ai}
    bare = parse_config(raw, loaded.source)
    seats = bare.variant.rules.seat_count(bare.game_config)
    if not settings.open_seats:
        raise ConfigError("open seats: name at least one seat for a person")
    wrong = [s for s in settings.open_seats if not 1 <= s <= seats]
    if wrong:
        shown = ", ".join(map(str, wrong))
        raise ConfigError(f"open seats: {shown} out of range; seats: 1..{seats}")
    person: dict[str, Any] = {
        "kind": "human",
        "interface": "browser",
        "seats": sorted(set(settings.open_seats)),
        "pace_s": pace_s,
    }
    if settings.timeout_s is not None:
        person["decision_timeout_s"] = settings.timeout_s
    raw["agent"] = [*raw["agent"], person]
    return parse_config(raw, loaded.source)


def _needs_more(entry: Mapping[str, Any]) -> bool:
    """An agent entry a lobby table cannot seat as an AI (a terminal or browser
    person, a program that must connect)."""
    return entry.get("kind") in ("human", "remote")


class TableHub(WebHub):
    """The lobby's one server as one table sees it: the table's pages are added
    to it, and stopping the table removes them (the server goes on)."""

    def __init__(self, shared: WebHub) -> None:  # no server of its own
        self.shared = shared
        self.host, self.port = shared.host, shared.port
        self.allowed_hosts, self.shown_host = shared.allowed_hosts, shared.shown_host
        self.stopped = False
        self.mine: list[Audience] = []
        self._mine_lock = threading.Lock()

    def add(self, audience: Audience) -> Audience:
        with self._mine_lock:
            self.mine.append(audience)
        return self.shared.add(audience)

    def remove(self, audience: Audience) -> None:
        self.shared.remove(audience)

    def audiences(self) -> list[Audience]:
        with self._mine_lock:
            return list(self.mine)

    def find(self, token: str) -> Audience | None:
        return self.shared.find(token)

    def url(self, audience: Audience) -> str:
        return self.shared.url(audience)

    def stop(self) -> None:
        self.stopped = True
        for audience in self.audiences():
            self.shared.remove(audience)


class Table:
    """A table of the lobby (see the module's docstring)."""

    def __init__(
        self,
        number: int,
        loaded: LoadedConfig,
        settings: TableSettings,
        hub: WebHub,
        out: Path,
        *,
        seed: int | None = None,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.number = number
        self.loaded, self.settings, self.out = loaded, settings, out
        self.on_change = on_change
        self.taken: set[int] = set()
        self._lock = threading.Lock()
        self.hub = TableHub(hub)
        # the run's server is the lobby's (given, never started: WebRun.hub() returns it)
        self.run = WebRun(host=hub.host, host_panel=True, announce=_quiet, _hub=self.hub)
        self.panel = self.run.panel()
        self.host_page = next(a for a in self.hub.audiences() if a.host is self.panel)
        self.seat_pages: dict[int, Audience] = {}
        language = loaded.file.llm.language
        for seat in sorted(settings.open_seats):
            page = self.seat_pages[seat] = self.run.seat_page(seat, language)
            # Opening a seat's link takes the seat (the host gave it to someone):
            # asked whenever the server sends the page its state.
            page.vet = self._opened(seat)
        self.seeds: list[int] = []
        self._seeded = seed is not None
        self.error = ""
        self.closed = False
        self._thread: threading.Thread | None = None
        self._play(seed if seed is not None else random_seed())

    # ------------------------------------------------------------ state
    @property
    def seats(self) -> int:
        return self.loaded.variant.rules.seat_count(self.loaded.game_config)

    def status(self) -> str:
        if self.closed:
            return CLOSED
        if self.error:
            return FAILED
        thread = self._thread
        if thread is not None and thread.is_alive():
            return PLAYING if self.panel.started.is_set() else WAITING_TO_START
        return ENDED

    def free_seats(self) -> list[int]:
        with self._lock:
            return [s for s in sorted(self.seat_pages) if s not in self.taken]

    def seat_of(self, page: Audience) -> int | None:
        return next((s for s, p in self.seat_pages.items() if p is page), None)

    def seat_rows(self) -> list[dict[str, Any]]:
        """Each open seat for the host: taken or free, left, handed to an AI."""
        people = {p.seat: p for p in self.run.people()}
        rows = []
        for seat, page in sorted(self.seat_pages.items()):
            person = people.get(seat)
            if seat not in self.taken:
                state = "free"
            elif person is None and self.status() == PLAYING:
                state = "played by an AI"
            elif person is not None and person.left:
                state = "left"
            else:
                state = "taken"
            rows.append({"seat": seat, "state": state, "token": page.token})
        return rows

    # ------------------------------------------------------------ people
    def take(self, seat: int) -> Audience:
        """The page of ``seat`` for the person who picks it in the lobby; of two
        people picking one seat at once exactly one gets it (under the lock)."""
        with self._lock:
            if self.closed:
                raise TableError(f"table {self.number} is closed", 410)
            if seat not in self.seat_pages:
                open_seats = ", ".join(map(str, sorted(self.seat_pages)))
                raise TableError(f"seat {seat} of table {self.number} is not open to people; "
                                 f"open seats: {open_seats}", 400)  # fmt: skip
            if seat in self.taken:
                raise TableError(f"seat {seat} of table {self.number} is taken")
            self.taken.add(seat)
        self._seated()
        return self.seat_pages[seat]

    def _opened(self, seat: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
        def vet(state: dict[str, Any]) -> dict[str, Any]:
            with self._lock:
                fresh = seat not in self.taken
                self.taken.add(seat)
            if fresh:
                self._seated()
            return state  # the seat's own page: nothing to narrow

        return vet

    def _seated(self) -> None:
        if self.settings.start_when_full and not self.free_seats():
            self.start()
        self.on_change()

    def rejoin(self, seat: int) -> None:
        """The person of ``seat`` comes back after "Leave game": their later
        decisions are theirs again (those in between were fallbacks, recorded
        as ``quit``). A lost connection needs nothing: the page comes back."""
        person = next((p for p in self.run.people() if p.seat == seat), None)
        if person is None:
            if self.status() == PLAYING:
                raise TableError(f"seat {seat} is played by an AI now (the host handed it back)")
            return  # between games: the next game seats the person afresh
        person.rejoin()
        self.on_change()

    # ------------------------------------------------------------ the host
    def start(self) -> None:
        if not self.panel.started.is_set():
            self.panel.start()
            self.on_change()

    def rematch(self) -> int:
        """A new game with the same people (their pages and links) and a new seed."""
        with self._lock:
            if self.status() != ENDED:
                raise TableError(f"table {self.number} is {self.status()}: a rematch "
                                 "follows a finished game")  # fmt: skip
            seed = self.seeds[-1] + 1 if self._seeded else random_seed()
            self._play(seed)
        self.on_change()
        return seed

    def close(self, wait_s: float = 10.0) -> None:
        """Close the table: its people leave (their questions fall back), the
        game runs to its end, its pages are removed from the server."""
        with self._lock:
            self.closed = True
        self.panel.start()
        for person in self.run.people():
            person.leave()
        thread = self._thread
        if thread is not None:
            thread.join(wait_s)
        self.hub.stop()
        self.on_change()

    # ------------------------------------------------------------ the games
    def _play(self, seed: int) -> None:
        self.seeds.append(seed)
        self.error = ""
        folder = self.out / f"table-{self.number}"
        thread = threading.Thread(
            target=self._game, args=(seed, folder), name=f"table-{self.number}", daemon=True
        )
        self._thread = thread
        thread.start()

    def _game(self, seed: int, folder: Path) -> None:
        try:
            play_game(self.loaded, seed, folder, hooks=self.run.hooks(LiveHooks()))
        except Exception as err:  # one line for the host and the lobby's log
            self.error = " ".join(str(err).split()) or type(err).__name__
        finally:
            self.on_change()

    def wait(self, timeout_s: float) -> bool:
        """Whether the current game's thread ended within ``timeout_s``."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return thread is None or not thread.is_alive()


def describe(table: Table, free: Sequence[int]) -> dict[str, Any]:
    """What the lobby lists of a table (never a token)."""
    loaded = table.loaded
    return {
        "table": table.number,
        "game": table.settings.game,
        "variant": loaded.variant.name,
        "seats": table.seats,
        "open": sorted(table.seat_pages),
        "free": list(free),
        "status": table.status(),
        "games": len(table.seeds),
    }


def _quiet(line: str) -> None:
    """A table announces nothing: its host page has its links (web/lobby_pages.py)."""


class LobbySide(Protocol):
    """What the lobby's routes and pages need of the lobby (``web/lobby.py``'s
    :class:`~sandbox.web.lobby.Lobby` is one; named here so that they do not
    import it back)."""

    games: dict[str, LoadedConfig]
    page: Audience

    def link(self, path: str, token: str) -> str: ...
    def listing(self) -> list[dict[str, Any]]: ...
    def create(self, settings: TableSettings) -> Table: ...
    def table(self, number: int) -> Table: ...
    def host_of(self, page: Audience) -> Table | None: ...
    def seat_of(self, page: Audience) -> tuple[Table, int] | None: ...
    def close(self, table: Table) -> None: ...


# ---------------------------------------------------------------- the host's form


def settings_of(form: Mapping[str, str]) -> TableSettings:
    """The host's choices from a form (or a JSON object of strings); TableError
    (400, one line) naming the field that is wrong."""
    game = form.get("game", "").strip()
    if not game:
        raise TableError("game: choose a game file", 400)
    return TableSettings(
        game=game,
        open_seats=_seat_list(form.get("open", "")),
        players=_number(form, "players", int, 1, 64),
        ai=_choice(form.get("ai", "baseline") or "baseline"),
        timeout_s=_number(form, "timeout_s", float, 1, MAX_TIMEOUT_S) or DEFAULT_TIMEOUT_S,
        start_when_full=form.get("start_when_full", "") in ("on", "1", "true", "yes"),
    )


def _seat_list(text: str) -> tuple[int, ...]:
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise TableError("open seats: name at least one seat for a person (e.g. 1, 2)", 400)
    if len(parts) > 64 or not all(p.isdigit() and len(p) < 4 for p in parts):
        raise TableError("open seats: seat numbers separated by commas (e.g. 1, 2)", 400)
    return tuple(sorted({int(p) for p in parts}))


def _number(form: Mapping[str, str], key: str, kind: type, low: float, high: float) -> Any:
    text = form.get(key, "").strip()
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        raise TableError(f"{key}: {text[:20]!r} is not a number", 400) from None
    if not low <= value <= high:  # NaN fails both comparisons
        raise TableError(f"{key}: {low:g}..{high:g}", 400)
    return value


def _choice(ai: str) -> str:
    if ai not in AI_KINDS:
        raise TableError(f"ai: {ai[:20]!r} is not one of {', '.join(AI_KINDS)}", 400)
    return ai
