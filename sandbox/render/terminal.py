"""Terminal output with rich: saved games (``sandbox view``) and live games (``run``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved
from sandbox.core.game import Game
from sandbox.core.variant import HistoryItem
from sandbox.render.readable import fact_lines
from sandbox.render.timeline import (
    DECISION,
    SPEECH,
    Entry,
    Timeline,
    quoted_by,
)

STYLES = {SPEECH: "white", DECISION: "dim", "referee": "bold cyan"}


def entry_text(entry: Entry) -> str:
    """Markup for one entry. Player text is escaped: it can never style the output."""
    if entry.category == SPEECH:
        return f'[bold]Seat {entry.speaker}[/bold]: "{escape(entry.text)}"'
    style = STYLES.get(entry.category, "bold cyan")
    prefix = "[Referee] " if entry.category != DECISION else ""
    return f"[{style}]{prefix}{escape(entry.text)}[/{style}]"


def print_timeline(console: Console, timeline: Timeline) -> None:
    console.rule(f"[bold]{escape(timeline.title)}")
    for key, value in timeline.facts:
        console.print(f"[dim]{key}:[/dim] {escape(value)}")
    if timeline.card:
        print_card(console, timeline.private)
    for section in timeline.sections:
        console.rule(escape(section.title), style="blue")
        for entry in section.entries:
            console.print(entry_text(entry))
            for call in entry.calls:
                console.print(f"    [dim italic]call: {escape(call.summary)}[/dim italic]")
                if call.beliefs:
                    console.print(f"    [dim magenta]beliefs: {escape(call.beliefs)}[/dim magenta]")
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


def print_card(console: Console, private: Mapping[str, Any]) -> None:
    """The seat's role card, one fact a line, in words."""
    console.print("[magenta]Your card:[/magenta]")
    for key, words in fact_lines(private):
        console.print(f"  [magenta]{escape(key)}:[/magenta] {escape(words)}")


class LiveRenderer:
    """Shows a game while it is played: everything (referee) or one seat's view."""

    def __init__(self, console: Console, seat: int | None = None) -> None:
        self.console = console
        self.seat = seat
        self._card_shown = False
        # A decision waits for the next event: if that event repeats it (a speech
        # and its announcement), only the announcement is shown.
        self._held: DecisionMade | None = None

    def on_event(self, game: Game, seq: int, event: Event) -> None:
        if isinstance(event, GameEnded):
            self._release(None)
            return  # the outcome is printed after the stream, in words and as a table
        if self.seat is None:
            self._referee(game, event)
        elif _visible(game, self.seat, seq):
            self._seat(game, seq)

    def _referee(self, game: Game, event: Event) -> None:
        if isinstance(event, StepResolved):
            return
        self._release(event)
        if isinstance(event, DecisionMade):
            self._held = event
            return
        text = escape(game.variant.describe_event(event))
        self.console.print(f"[cyan]{text}[/cyan]")

    def _release(self, following: Event | None) -> None:
        """Print the held decision unless ``following`` says the same thing."""
        held, self._held = self._held, None
        if held is None or quoted_by(held, following):
            return
        fallback = f" (fallback: {held.fallback_reason})" if held.fallback else ""
        answer = ", ".join(f"{k}={_shown(v)}" for k, v in held.payload.items())
        self.console.print(
            f"[dim]seat {held.seat} · {held.decision}: {escape(answer)}{fallback}[/dim]"
        )

    def _seat(self, game: Game, seq: int) -> None:
        assert self.seat is not None
        view = game.view(self.seat)
        if not self._card_shown and view.private:
            self._card_shown = True
            print_card(self.console, view.private)
        for item in view.history:
            if item.seq == seq:
                self.console.print(seat_item_text(game, item))


def _shown(value: object) -> str:
    """An answer value: text quoted (it is the player's), none for no choice."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _visible(game: Game, seat: int, seq: int) -> bool:
    return game.events[seq].visibility().visible_to(seat)


def seat_item_text(game: Game, item: HistoryItem) -> str:
    if item.speech is not None:
        return f'[bold]Seat {item.speaker}[/bold]: "{escape(item.speech)}"'
    text = game.variant.describe_event(game.events[item.seq])
    return f"[cyan][Referee] {escape(text)}[/cyan]"
