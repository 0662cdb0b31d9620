"""What a person sees while a game plays (``run``, ``resume``, ``fork``): the live
stream of events or a progress line, and each finished game's result table."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.status import Status
from rich.table import Table

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.session import GameRecord, LiveHooks
from sandbox.session.gamefile import LoadedConfig
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
        self.label = ""
        self.progress = ""

    def hooks(self, label: str) -> LiveHooks:
        self.label = label
        return LiveHooks(on_start=self._start, on_event=self._event)

    def _start(self, game: Game, path: Path) -> None:
        self.current = path
        if self.renderer is not None:
            self.console.rule(f"{escape(self.label)} · {escape(path.name)}")
        elif self.status is not None:
            self.status.start()

    def _event(self, game: Game, seq: int, event: Event) -> None:
        if self.renderer is not None:
            self.renderer.on_event(game, seq, event)
        elif self.status is not None:
            self.progress = f"{self.label}: step {game.step}, {seq + 1} events"
            self.status.update(self.progress)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()

    def game_done(self, record: GameRecord) -> None:
        self.stop()
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


def print_record(console: Console, record: GameRecord) -> None:
    """A finished game: its outcome, each seat's role and result, and its usage."""
    outcome = record.outcome
    if outcome is not None:
        console.print(f"[bold green]{escape(outcome.summary)}[/bold green] ({outcome.reason})")
    table = Table("seat", "role", "result")
    for seat, role in sorted(record.roles.items()):
        table.add_row(str(seat), role, outcome.results.get(seat, "-") if outcome else "-")
    console.print(table)
    stats = record.stats
    console.print(
        f"decisions {stats.decisions} · fallbacks {stats.fallback_count()} · "
        f"calls {stats.calls} · tokens {stats.tokens_in}/{stats.tokens_out} · "
        f"cost ${stats.cost:.4f}"
    )
    console.print(f"transcript: {record.path}")
