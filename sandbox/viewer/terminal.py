"""Terminal output with rich: saved games (``sandbox view``) and live games (``run``).

Every line comes from the words renderer; player text is sanitised (one line, no
control characters) and escaped (it can never style the output), so a speech
can never pass for a referee line.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.agents.human.terminal import print_card
from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved
from sandbox.core.game import Game
from sandbox.core.variant import HistoryItem
from sandbox.core.words import Lang
from sandbox.viewer.board import known_variants
from sandbox.viewer.calls import CallLine
from sandbox.viewer.story import Story
from sandbox.viewer.timeline import Entry, Timeline, quoted_by, tag_of
from sandbox.words import (
    DECISION,
    SPEECH,
    Tag,
    Words,
    item_words,
    sanitise,
    tag_text,
    words_for,
)

STYLES = {SPEECH: "white", DECISION: "dim"}


def words_markup(words: Words, tag: Tag | None = None, language: str = "en") -> str:
    """One line as rich markup: a dim tag, the sentence, the quoted (escaped) speech."""
    L = Lang(language)
    head = (
        f"[dim]{escape(tag_text(tag, language, known_variants()))}[/dim]  "
        if tag is not None
        else ""
    )
    style = STYLES.get(words.category, "cyan")
    body = f"[{style}]{escape(words.sentence)}[/{style}]"
    if words.speech is not None:
        quoted = escape(sanitise(words.speech))
        body = f"[bold]{escape(words.sentence)}[/bold]" + L.say(
            en=f': "{quoted}"', zh=f"：“{quoted}”"
        )
    return head + body


@dataclass(frozen=True)
class Filters:
    """What `sandbox view` prints: one day, lines containing a text, the model calls."""

    day: int | None = None
    grep: str | None = None
    calls: bool = False

    def keeps(self, entry: Entry, line: str) -> bool:
        if self.day is not None and entry.day != self.day:
            return False
        return self.grep is None or self.grep.lower() in line.lower()


def print_timeline(console: Console, timeline: Timeline, filters: Filters | None = None) -> int:
    """Print the story; returns how many lines it kept."""
    filters = filters or Filters()
    referee = timeline.seat is None
    console.rule(f"[bold]{escape(timeline.title)}")
    for key, value in timeline.facts:
        console.print(f"[dim]{key}:[/dim] {escape(value)}")
    if timeline.private:
        print_card(console, timeline.private, timeline.language)
    kept = 0
    for section in timeline.sections:
        lines = [(e, _words_for_audience(e, timeline.seat)) for e in section.entries]
        shown = [(e, w) for e, w in lines if filters.keeps(e, _plain(e, w))]
        if not shown:
            continue
        console.rule(escape(section.title), style="blue")
        for entry, words in shown:
            console.print(words_markup(words, tag_of(entry, referee), timeline.language))
            if entry.note:
                console.print(f"    [dim italic]note: {escape(sanitise(entry.note))}[/dim italic]")
            for call in entry.calls:
                print_call(console, call, filters.calls)
        kept += len(shown)
    if filters.day is None and filters.grep is None:
        print_outcome(console, timeline)
    elif kept == 0:
        console.print("[yellow]No line matches.")
    return kept


def _words_for_audience(entry: Entry, seat: int | None) -> Words:
    if seat is not None and entry.you is not None and entry.speaker == seat:
        return entry.you
    return entry.words


def _plain(entry: Entry, words: Words) -> str:
    return " ".join(filter(None, (words.sentence, words.speech, entry.note, entry.role)))


def print_call(console: Console, call: CallLine, full: bool) -> None:
    """A model call under its decision (referee only): a summary line, the belief
    probe, and with ``full`` the prompt, the raw answer and the error."""
    console.print(f"    [dim italic]call: {escape(sanitise(call.summary))}[/dim italic]")
    if call.beliefs:
        console.print(f"    [dim magenta]beliefs: {escape(call.beliefs)}[/dim magenta]")
    if not full:
        return
    for role, content in call.messages:
        console.print(f"      [bold dim]{escape(role)}:[/bold dim]")
        for line in content.splitlines():
            console.print(f"        [dim]{escape(sanitise(line))}[/dim]")
    console.print(f"      [bold dim]answer:[/bold dim] {escape(sanitise(call.raw))}")
    if call.error:
        console.print(f"      [red]error: {escape(sanitise(call.error))}[/red]")


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


class LiveRenderer:
    """Shows a game while it is played: everything (referee) or one seat's view."""

    def __init__(self, console: Console, seat: int | None = None, language: str = "en") -> None:
        self.console = console
        self.seat = seat
        self.language = language
        self._card_shown = False
        # A decision waits for the next event: if that event repeats it (a speech
        # and its announcement), only the announcement is shown.
        self._held: tuple[int, DecisionMade] | None = None

    def on_event(self, game: Game, seq: int, event: Event) -> None:
        if isinstance(event, GameEnded):
            self._release(game, None)
            return  # the outcome is printed after the stream, in words and as a table
        if self.seat is None:
            self._referee(game, seq, event)
        elif event.visibility().visible_to(self.seat):
            self._seat(game, seq)

    def _referee(self, game: Game, seq: int, event: Event) -> None:
        if isinstance(event, StepResolved):
            return
        self._release(game, event)
        if isinstance(event, DecisionMade):
            self._held = (seq, event)
            return
        self._print(game, seq, event)

    def _print(self, game: Game, seq: int, event: Event) -> None:
        words = words_for(game.variant, event.kind, event.to_json()["data"], self.language)
        self.console.print(words_markup(words, Tag(seq=seq), self.language))

    def _release(self, game: Game, following: Event | None) -> None:
        """Print the held decision unless ``following`` says the same thing."""
        held, self._held = self._held, None
        if held is not None and not quoted_by(held[1], following):
            self._print(game, *held)

    def _seat(self, game: Game, seq: int) -> None:
        """An event the seat may see, from its own page: its decisions read "You …"."""
        assert self.seat is not None
        if not self._card_shown:
            view = game.view(self.seat)
            if view.private:
                self._card_shown = True
                print_card(self.console, view.private, self.language)
        event = game.events[seq]
        if isinstance(event, StepResolved):
            return
        data = event.to_json()["data"]
        words = words_for(game.variant, event.kind, data, self.language, you=self.seat)
        self.console.print(words_markup(words, Tag(seq=seq), self.language))


def seat_item_text(
    game: Game, item: HistoryItem, seat: int | None = None, language: str = "en"
) -> str:
    """One item of a seat's history as markup, in the words `sandbox view` uses."""
    words = item_words(game.variant, item, seat, language)
    return words_markup(words, Tag(seq=item.seq), language)


def print_story(console: Console, story: Story) -> None:
    """The story at the end (issue 38): each night and day under its heading,
    each claim with its verdict."""
    console.rule(f"[bold]{escape(story.title)}[/bold]")
    console.print(f"[dim]{escape(story.hint)}[/dim]")
    for chapter in story.chapters:
        console.print(f"[bold]{escape(chapter.title)}[/bold]")
        for line in chapter.lines:
            if line.label is None:
                console.print(f"  {escape(line.text)}")
                continue
            colour = VERDICT_COLOURS.get(line.label, "white")
            why = f" [dim]({escape(line.why or '')})[/dim]" if line.label != "true" else ""
            console.print(
                f"  [{colour}]{escape(line.mark or '')}[/{colour}] {escape(line.text)}{why}"
            )
    if story.summary:
        console.print(f"[bold green]{escape(story.summary)}[/bold green]")


VERDICT_COLOURS = {"true": "green", "lie": "red", "error": "yellow"}
