"""Terminal output with rich: saved games (``sandbox view``) and live games (``run``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved
from sandbox.core.game import Game
from sandbox.core.variant import HistoryItem
from sandbox.render.timeline import (
    DECISION,
    ENDING,
    SPEECH,
    Entry,
    Timeline,
)

STYLES = {SPEECH: "white", DECISION: "dim", ENDING: "bold green", "referee": "bold cyan"}


def entry_text(entry: Entry) -> str:
    """Markup for one entry. Player text is escaped: it can never style the output."""
    if entry.category == SPEECH:
        return f'[bold]Seat {entry.speaker}[/bold]: "{escape(entry.text)}"'
    style = STYLES.get(entry.category, "bold cyan")
    prefix = "[Referee] " if entry.category not in (DECISION, ENDING) else ""
    return f"[{style}]{prefix}{escape(entry.text)}[/{style}]"


def print_timeline(console: Console, timeline: Timeline) -> None:
    console.rule(f"[bold]{escape(timeline.title)}")
    for key, value in timeline.facts:
        console.print(f"[dim]{key}:[/dim] {escape(value)}")
    if timeline.private:
        console.print(f"[magenta]Your card:[/magenta] {escape(_card(timeline.private))}")
    for section in timeline.sections:
        console.rule(escape(section.title), style="blue")
        for entry in section.entries:
            console.print(entry_text(entry))
            for call in entry.calls:
                console.print(f"    [dim italic]call: {escape(call)}[/dim italic]")
    print_outcome(console, timeline)


def print_outcome(console: Console, timeline: Timeline) -> None:
    if not timeline.finished and timeline.outcome_summary is None:
        console.print("[yellow]The game is unfinished (resume it with `sandbox resume`).")
        return
    if timeline.outcome_summary:
        console.print(f"[bold green]Outcome:[/bold green] {escape(timeline.outcome_summary)}")
    table = Table("seat", "role", "agent", "result")
    for row in timeline.outcome_rows:
        table.add_row(str(row.seat), row.role or "?", row.agent or "?", row.result or "-")
    console.print(table)


def _card(private: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in private.items())


class LiveRenderer:
    """Shows a game while it is played: everything (referee) or one seat's view."""

    def __init__(self, console: Console, seat: int | None = None) -> None:
        self.console = console
        self.seat = seat
        self._card_shown = False

    def on_event(self, game: Game, seq: int, event: Event) -> None:
        if self.seat is None:
            self._referee(game, event)
        elif _visible(game, self.seat, seq):
            self._seat(game, seq)

    def _referee(self, game: Game, event: Event) -> None:
        if isinstance(event, StepResolved):
            return
        if isinstance(event, DecisionMade):
            fallback = f" (fallback: {event.fallback_reason})" if event.fallback else ""
            answer = ", ".join(f"{k}={v!r}" for k, v in event.payload.items())
            self.console.print(
                f"[dim]seat {event.seat} · {event.decision}: {escape(answer)}{fallback}[/dim]"
            )
            return
        style = "bold green" if isinstance(event, GameEnded) else "cyan"
        text = escape(game.variant.describe_event(event))
        self.console.print(f"[{style}]{text}[/{style}]")

    def _seat(self, game: Game, seq: int) -> None:
        assert self.seat is not None
        view = game.view(self.seat)
        if not self._card_shown and view.private:
            self._card_shown = True
            self.console.print(f"[magenta]Your card:[/magenta] {escape(_card(view.private))}")
        for item in view.history:
            if item.seq == seq:
                self.console.print(seat_item_text(game, item))


def _visible(game: Game, seat: int, seq: int) -> bool:
    return game.events[seq].visibility().visible_to(seat)


def seat_item_text(game: Game, item: HistoryItem) -> str:
    if item.speech is not None:
        return f'[bold]Seat {item.speaker}[/bold]: "{escape(item.speech)}"'
    text = game.variant.describe_event(game.events[item.seq])
    return f"[cyan][Referee] {escape(text)}[/cyan]"
