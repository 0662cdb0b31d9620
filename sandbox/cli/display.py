"""What a person sees while a game plays (``run``, ``resume``, ``fork``): the live
stream of events or a progress line, and each finished game's result table."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.status import Status
from rich.table import Table

from sandbox.agents.human.seat import HumanAgent
from sandbox.agents.human.terminal import HumanTerminalAgent
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.session import GameRecord, LiveHooks
from sandbox.session.gamefile import LoadedConfig
from sandbox.session.runner import RunStats
from sandbox.transcript import TranscriptWriter
from sandbox.viewer.terminal import LiveRenderer


class Display:
    """Live output of a run: a readable stream of events, or a progress line."""

    def __init__(
        self,
        console: Console,
        status_console: Console,
        seat: int | None,
        live: bool,
        progress_line: bool = False,
    ) -> None:
        self.console = console
        self.status_console = status_console
        self.renderer = LiveRenderer(console, seat) if live else None
        self.status: Status | None = None if live else Status("", console=status_console)
        # A spinner draws nothing where stderr is no terminal (a log, a pipe): there
        # the progress shows as one line per finished game instead.
        self.progress_line = progress_line and not live and not status_console.is_terminal
        self.current: Path | None = None
        self.started = 0.0  # when the current game started (time.monotonic)
        # Each finished game's wall-clock seconds, by transcript path.
        self.seconds: dict[Path, float] = {}
        self.label = ""
        self.progress = ""
        # Fair play (issue 38): a run with web pages says, at every event, whether a
        # person plays a seat this stream could help (the host may be that person);
        # then the terminal prints only what every seat is told, until the game ends.
        self.narrowed: Callable[[int | None], bool] | None = None
        self._public: LiveRenderer | None = None
        # The game's terminal seats: each follows the game once out (issue 38 item 8).
        self.terminal_seats: dict[int, HumanTerminalAgent] = {}

    def hooks(self, label: str) -> LiveHooks:
        self.label = label
        return LiveHooks(on_start=self._start, on_event=self._event, seat_agents=self._seated)

    def _seated(
        self, game: Game, agents: dict[int, Agent], writer: TranscriptWriter
    ) -> dict[int, Agent]:
        self.terminal_seats = {}
        for seat, agent in agents.items():
            person = agent.seated_agent if isinstance(agent, HumanAgent) else agent
            if isinstance(person, HumanTerminalAgent):
                self.terminal_seats[seat] = person
        return agents

    def _start(self, game: Game, path: Path) -> None:
        self.current = path
        self.started = time.monotonic()
        self._public = None
        if self.renderer is not None:
            self.console.rule(f"{escape(self.label)} · {escape(path.name)}")
        elif self.status is not None:
            self.status.start()

    def _event(self, game: Game, seq: int, event: Event) -> None:
        for seat, person in self.terminal_seats.items():
            if event.visibility().visible_to(seat):
                person.follow(game.view(seat), over=game.over)
        if self.renderer is not None:
            # once narrowed, to the game's last event (its final step is flushed
            # after the game is decided)
            fair = self.narrowed
            if self._public is not None or (fair is not None and fair(self.renderer.seat)):
                self._narrow(game, seq, event)
            else:
                self.renderer.on_event(game, seq, event)
        elif self.status is not None:
            self.progress = f"{self.label}: step {game.step}, {seq + 1} events"
            self.status.update(self.progress)

    def _narrow(self, game: Game, seq: int, event: Event) -> None:
        """A person plays: only the public events, in the referee's words (which,
        for a public event, every seat is told)."""
        if self._public is None:
            self.console.print(
                "[dim]A person plays at this table: until the game ends the terminal "
                "shows only what every player is told.[/dim]"
            )
            self._public = LiveRenderer(self.console, None)
        if event.visibility().scope == "public":
            self._public.on_event(game, seq, event)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()

    def game_done(self, record: GameRecord) -> None:
        self.stop()
        if record.path is not None and self.current is not None:
            self.seconds[record.path] = time.monotonic() - self.started
        self.current = None  # finished: nothing to resume or to call partial
        if self.progress_line:
            self.status_console.print(f"{self.progress} · finished")


def consoles(as_json: bool) -> tuple[Console, Console]:
    """Where the game goes (stderr when stdout carries the JSON) and where notes go."""
    err = Console(stderr=True, highlight=False)
    return (err if as_json else Console(highlight=False)), err


def live_seat(loaded: LoadedConfig, as_seat: int | None, err: Console) -> tuple[bool, int | None]:
    """Whether to stream events, and as whom. With a human at the table the referee's
    view would spoil the game, so only the human's own prompts are shown."""
    humans = [s for s in loaded.file.agent if s.kind == "human"]
    if as_seat is None and (humans or loaded.file.default_agent.kind == "human"):
        err.print("[dim]A human plays here: the referee's view is hidden (use --as-seat).")
        return False, None
    return True, as_seat


def print_record(console: Console, record: GameRecord, seconds: float | None = None) -> None:
    """A finished game: its outcome, each seat's role and result, and its usage;
    with ``seconds`` (the game's wall-clock time), the time per decision."""
    outcome = record.outcome
    if outcome is not None:
        console.print(f"[bold green]{escape(outcome.summary)}[/bold green] ({outcome.reason})")
    table = Table("seat", "role", "result")
    for seat, role in sorted(record.roles.items()):
        table.add_row(str(seat), role, outcome.results.get(seat, "-") if outcome else "-")
    console.print(table)
    console.print(usage_line(record.stats))
    if seconds is not None and record.stats.decisions:
        console.print(time_line(seconds, record.stats.decisions))
    console.print(f"transcript: {record.path}")


def usage_line(stats: RunStats) -> str:
    """A game's usage in one line: decisions, fallbacks, calls, tokens (with the
    share of prompt tokens the provider read from its cache), cost."""
    cached = f" ({stats.tokens_cached / stats.tokens_in:.0%} cached)" if stats.tokens_cached else ""
    return (
        f"decisions {stats.decisions} · fallbacks {stats.fallback_count()} · "
        f"calls {stats.calls} · tokens {stats.tokens_in}/{stats.tokens_out}{cached} · "
        f"cost ${stats.cost:.4f}"
    )


def time_line(seconds: float, decisions: int) -> str:
    """The game's wall-clock time and its seconds per decision (issue 40: what
    ``make play`` ends with)."""
    return f"time {seconds:.1f} s · {seconds / decisions:.2f} s per decision"
