"""Spectator pages, and the pages an event changed, rendered once per step.

A page's HTML is the whole view or the whole referee's history, so rendering it
after every event made a game's web cost grow with the square of its length
(a referee spectator: every event's words again after every event). Two things
keep the per-event cost small: each event is put into words once per page (the
words are kept by sequence number, per game), and the pages an event changed are
only *marked*; they are rendered once when the game's loop next turns (after the
step's events are all flushed), or at once before a pace wait, so that a person
reads each paced event as it comes.

Fair play: while a person plays (or has played) a seat of the game, a spectator
page that could help them — the referee's, or another seat's — is *narrowed* to
the public events only. The run says, at any moment, what a target's page may
show (:data:`FULL` or :data:`PUBLIC`); a page records what it was rendered for,
and the server checks that record against the run at every push and page load
(:meth:`Spectator.vet`), so a page rendered a moment before a take-over is never
sent after it: it is withheld until it is rendered again, narrowed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markupsafe import escape

from sandbox.core.game import Game
from sandbox.core.words import Words
from sandbox.web.audience import Audience
from sandbox.web.pages import (
    Entry,
    ReasonOf,
    entry_of,
    render_entries,
    render_view,
    with_reasons,
)
from sandbox.web.referee import Phases, phases_of, referee_html
from sandbox.web.seat import HumanBrowserAgent
from sandbox.web.words import ui
from sandbox.words import words_for

FULL = "full"  # the target's whole view (nobody plays, or only the target's own person)
PUBLIC = "public"  # narrowed: only what every seat is told
# What a target's page may show now (the run's answer, asked at every push).
Scope = Callable[[int | None], str]


def _everything(target: int | None) -> str:
    return FULL


@dataclass(eq=False)
class Spectator:
    """A read-only live page of one seat's view (or the referee's)."""

    target: int | None  # None: the referee
    audience: Audience
    allowed: Scope = _everything
    _game: Game | None = field(default=None, repr=False)
    _entries: list[Entry] = field(default_factory=list, repr=False)
    _done: int = 0  # the game's events already in _entries (the referee's page)
    _words: dict[int, Words] = field(default_factory=dict, repr=False)  # a seat's page
    # the referee's page: each event's words and data (its board), its day and phase
    _said: dict[int, tuple[Words, Any]] = field(default_factory=dict, repr=False)
    _phases: Phases = field(default_factory=dict, repr=False)

    def refresh(self, game: Game, language: str) -> None:
        """The page from the game as it is now (on the game's loop only)."""
        if game is not self._game:  # a new game of a series: start its words afresh
            self._game, self._entries, self._done, self._words = game, [], 0, {}
            self._said, self._phases = {}, {}
        scope = self.allowed(self.target)
        if scope != FULL:  # a person plays: what every seat is told, nothing more
            public = [e for e in self._referee_entries(game, language) if _public(game, e.seq)]
            html = narrowed_note(language) + render_entries(public, language)
        elif self.target is None:  # day headings, the board, no "You" (issue 38)
            entries = self._referee_entries(game, language)
            phases = phases_of(game, self._phases)
            html = referee_html(game, entries, self._said, phases, language)
        else:
            view = with_reasons(game.view(self.target), language, _reason_in(game))
            html = render_view(view, language, words=self._words)
        self.audience.board.update(view_html=html, status_text=self.audience.title, scope=scope)

    def vet(self, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` as it may be sent now: a page rendered for a wider audience
        than the table allows at this moment (a person has just taken a seat) is
        withheld — the history and end screen replaced by the narrowing note —
        until the run renders it again (checked at every push and page load)."""
        if state.get("scope") == self.allowed(self.target):
            return state
        language = self.audience.language
        return {**state, "view_html": narrowed_note(language), "end_html": "", "withheld": True}

    def _referee_entries(self, game: Game, language: str) -> list[Entry]:
        """Every event in the one words renderer's sentences, the new ones added."""
        events = game.events
        for seq in range(self._done, len(events)):
            data = events[seq].to_json()
            words = words_for(game.variant, data["kind"], data["data"], language)
            self._said[seq] = (words, data["data"])
            entry = entry_of(seq, words)
            if entry is not None:
                self._entries.append(entry)
        self._done = len(events)
        return self._entries


def _reason_in(game: Game) -> ReasonOf:
    """A seat's fallback reasons as the game recorded them (the spectator of a
    seat sees its own decisions, so their reasons too)."""

    def reason(seq: int, nth: int) -> str | None:
        return str(getattr(game.events[seq], "fallback_reason", "")) or None

    return reason


def _public(game: Game, seq: int) -> bool:
    return seq < len(game.events) and game.events[seq].visibility().scope == "public"


def narrowed_note(language: str) -> str:
    """The line atop a narrowed spectator page (HTML, escaped)."""
    return f'<p class="narrowed">{escape(ui(language)["narrowed"])}</p>'


class Stale:
    """The pages the latest events changed, rendered together (see the module)."""

    def __init__(self) -> None:
        self.people: dict[int, HumanBrowserAgent] = {}
        self.spectators: dict[int, Spectator] = {}
        self._due = False

    def person(self, person: HumanBrowserAgent) -> None:
        self.people[id(person)] = person

    def spectator(self, spectator: Spectator) -> None:
        self.spectators[id(spectator)] = spectator

    def reset(self) -> None:
        """A new game: nothing is due (a callback of a closed loop never ran)."""
        self.people.clear()
        self.spectators.clear()
        self._due = False

    def render_soon(self, render: Callable[[], None]) -> None:
        """``render`` once the game's loop turns; at once when called off a loop."""
        loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
        if loop is None:
            render()
        elif not self._due:
            self._due = True
            loop.call_soon(render)

    def take(self) -> tuple[list[HumanBrowserAgent], list[Spectator]]:
        """The marked pages, unmarked."""
        people, spectators = list(self.people.values()), list(self.spectators.values())
        self.reset()
        return people, spectators
