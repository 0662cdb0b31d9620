"""A person playing one seat in the terminal.

The seat is shown only its own view (``ctx.view``: the events it may see) and
the open request. Answers are read line by line from an input stream, checked
with the referee's dry run, and asked again with the referee's explanation
when illegal — only the refused field is asked again, the other answers are
kept. Digits always mean seats: a choice among seats is typed as the seat
number itself (typing ``9`` means seat 9, never the 9th option), any other
choice by its letter or its word, a yes/no question by y/n (yes/no, 是/否);
the seat itself and its side are marked ("[3] seat 3 (you)"). ``rules`` prints
the rules a model seat is given, ``card`` the seat's role card, then the
question again. Each turn shows the facts of "Now" that changed since the last
one (all of them the first time), then what happened since. Once the seat is
out, the person is told so ("You are out") and then shown each event the seat
may see as it comes, to the game's end (:meth:`HumanTerminalAgent.follow`,
called by the CLI's display). Typing ``quit`` (once
confirmed) leaves the game: this and every later decision get the referee's
documented fallback, recorded as FALLBACK_QUIT. With a
``decision_timeout_s``, a question left unanswered that long gets the fallback,
recorded as FALLBACK_TIMEOUT.
"""

from __future__ import annotations

import asyncio
import re
import string
import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.agents.human import open_day
from sandbox.agents.human.readable import fact_lines, own_death, seat_alive
from sandbox.agents.human.refusal import refusal_words, refused_fields
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Field, MultiChoice, Scalar, Text
from sandbox.core.seat import (
    FALLBACK_QUIT,
    FALLBACK_TIMEOUT,
    Agent,
    AgentAnswer,
    DecisionContext,
)
from sandbox.core.variant import HistoryItem, SeatView, Variant
from sandbox.core.words import as_you
from sandbox.words import (
    BOOKKEEPING,
    DECISION,
    Speakers,
    card_rows,
    item_words,
    lang,
    phase_title,
    variant_words,
)

QUIT = "quit"
RULES = "rules"
CARD = "card"
# How a seat left the game, as "You are out (voted out, day 2)" says it.
CAUSES = {
    "night": "killed in the night",
    "vote": "voted out",
    "exile": "exiled",
    "duel": "killed in a duel",
}
NULL_WORDS = frozenset({"none", "nobody", "null", "-"})
YES_WORDS = frozenset({"y", "yes", "true", "是"})
NO_WORDS = frozenset({"n", "no", "false", "否"})
LETTERS = string.ascii_lowercase
NULL_WORD = re.compile(r"\bnull\b")
# Model wording → what a person picks: "(null abstains)" → "(or nobody, to abstain)".
PEOPLE_WORDS = ((re.compile(r"\(null abstains\)"), "(or nobody, to abstain)"),)


class QuitGame(Exception):
    """The person typed quit (or the input ended)."""


class BadInput(Exception):
    """An answer that could not be read; the message says what to type instead."""


class HumanTerminalAgent(Agent):
    kind = "human"

    def __init__(
        self,
        seat: int,
        input_stream: IO[str] | None = None,
        console: Console | None = None,
        decision_timeout_s: float | None = None,
        language: str = "en",
    ) -> None:
        self.seat = seat
        self.decision_timeout_s = decision_timeout_s
        self.language = language  # of the rules text shown on request
        # A line being read when a question timed out is kept for the next question.
        self._reading: asyncio.Future[str] | None = None
        self._rules = ""
        self.input = input_stream if input_stream is not None else sys.stdin
        # stderr, so that `run --json` keeps stdout for its one JSON object.
        self.console = console or Console(stderr=True, highlight=False)
        self.last_seq = -1
        self.card_shown = False
        self.left = False
        self.out = False  # told "You are out"; from then on it follows every event
        self._facts: dict[str, str] = {}  # "Now" as last shown: only changes are shown
        self._card: Mapping[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {"kind": self.kind, "interface": "terminal"}
        if self.decision_timeout_s is not None:
            described["decision_timeout_s"] = self.decision_timeout_s
        return described

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self.left:
            return AgentAnswer(None, fallback_reason=FALLBACK_QUIT)
        self._rules = ctx.rules(self.language)
        self._show_news(ctx)
        try:
            payload = await asyncio.wait_for(self._ask_until_legal(ctx), self.decision_timeout_s)
            return AgentAnswer(payload)
        except TimeoutError:
            self.console.print("[yellow]Time is up; the referee plays your fallback.")
            return AgentAnswer(None, note="no answer in time", fallback_reason=FALLBACK_TIMEOUT)
        except QuitGame:
            self.left = True
            self.console.print("[yellow]You left the game; the referee plays your fallbacks.")
            return AgentAnswer(None, note="the player quit", fallback_reason=FALLBACK_QUIT)

    # ------------------------------------------------------------- showing
    def _show_news(self, ctx: DecisionContext) -> None:
        view = ctx.view
        self.console.rule(f"Seat {self.seat}: your turn")
        self._card = view.private
        if not self.card_shown and view.private:
            self.card_shown = True
            print_card(self.console, view.private, variant=view.variant)
        self._show_changed_facts(view)
        self._show_history(view)

    def _show_changed_facts(self, view: SeatView) -> None:
        """ "Now": every fact the first time, later only those that changed (a whole
        status block every turn buried the news; issue 38 item 8)."""
        lines = dict(fact_lines(known_facts(view.public)))
        changed = {k: v for k, v in lines.items() if self._facts.get(k) != v}
        if changed:
            title = "Now:" if not self._facts else "Now (what changed):"
            self.console.print(f"[dim]{title}[/dim]")
            for key, words in changed.items():
                self.console.print(f"  [dim]{escape(key)}:[/dim] {escape(words)}")
        self._facts = lines

    def _show_history(self, view: SeatView) -> None:
        """What the seat saw since it was last shown anything."""
        for item in view.history:
            if item.seq > self.last_seq:
                line = history_line(item, view.variant, self.seat)
                if line:
                    self.console.print(line)
        if view.history:
            self.last_seq = max(self.last_seq, max(item.seq for item in view.history))

    def follow(self, view: SeatView, over: bool = False) -> None:
        """The seat saw an event (the CLI's display calls this after each one).
        While the seat plays, its news waits for its next turn; once it is out
        the person is told so, then sees each event as it comes; at the end, the
        last events (who won) whatever the seat's state (issue 38 item 8)."""
        if not self.out and not seat_alive(view):
            self.out = True
            self.console.rule(f"Seat {self.seat}: you are out")
            self.console.print(f"[yellow]{escape(out_line(view))}[/yellow]")
        if self.out or over:
            self._show_history(view)

    # ------------------------------------------------------------- asking
    async def _ask_until_legal(self, ctx: DecisionContext) -> dict[str, Any]:
        request = ctx.request
        if open_day.is_ask(request):  # OD-7: a line typed at any ask of the day posts
            said = await self._ask_message(ctx)
            if said is not None:
                return said
        marks = seat_marks(ctx.view)
        payload: dict[str, Any] = {}
        asking = [f.name for f in request.fields]
        while True:
            for f in request.fields:
                if f.name in asking:
                    payload[f.name] = await self._ask_field(ctx, f, marks)
            try:
                return ctx.validate(payload)
            except IllegalDecision as err:
                asking = list(refused_fields(err, request))
                refusal = refusal_words(err, request)
                self.console.print(f"[red]The referee refuses:[/red] {escape(refusal)}")
                again = ", ".join(asking)
                self.console.print(f"Please answer again: {escape(again)} (the rest is kept).")

    async def _ask_message(self, ctx: DecisionContext) -> dict[str, Any] | None:
        """An open day's ask as a chat line (``open_day``); None: the full form."""
        self.console.print(f"[bold]{escape(open_day.prompt(ctx, self.language))}[/bold]")
        while True:
            line = await self._read()
            command = line.strip().lower()
            if command == RULES:
                self.console.print(escape(self._rules or "(no rules text for this game)"))
            elif command == CARD:
                print_card(self.console, ctx.view.private)
            elif command == QUIT:
                if await self._quit_confirmed():
                    raise QuitGame
            elif (answer := open_day.answer_of(ctx.request, line)) is None:
                return None
            else:
                try:
                    return ctx.validate(answer)
                except IllegalDecision as err:
                    refusal = refusal_words(err, ctx.request)
                    self.console.print(f"[red]The referee refuses:[/red] {escape(refusal)}")

    def _ask_question(self, ctx: DecisionContext, f: Field, marks: Mapping[int, str]) -> None:
        request = ctx.request
        limit = self.decision_timeout_s
        within = f"; {limit:g} s to answer" if limit is not None else ""
        self.console.print(
            f"[bold]{escape(for_people(request.instruction))}[/bold] [dim]({request.rule}; "
            f"'{CARD}' shows your card, '{RULES}' shows the rules, '{QUIT}' leaves{within})[/dim]"
        )
        self.console.print(f"[bold]{f.name}[/bold]: {escape(for_people(f.description))}")
        self.console.print(escape(options_text(f, marks)))  # "[a]" is no markup tag

    async def _ask_field(self, ctx: DecisionContext, f: Field, marks: Mapping[int, str]) -> Any:
        self._ask_question(ctx, f, marks)
        while True:
            line = await self._read()
            command = line.strip().lower()
            if command == RULES:
                self.console.print(escape(self._rules or "(no rules text for this game)"))
                self._ask_question(ctx, f, marks)  # the question again, not a bare prompt
                continue
            if command == CARD:
                print_card(self.console, ctx.view.private)
                self._ask_question(ctx, f, marks)
                continue
            if command == QUIT:
                if await self._quit_confirmed():
                    raise QuitGame
                self._ask_question(ctx, f, marks)
                continue
            try:
                return parse_answer(f, line)
            except BadInput as err:
                self.console.print(f"[red]{escape(str(err))}[/red]")

    async def _quit_confirmed(self) -> bool:
        self.console.print(
            "Leave the game? The referee plays your remaining decisions. [bold](y/n)[/bold]"
        )
        while True:
            answer = (await self._read()).strip().lower()
            if answer in YES_WORDS:
                return True
            if answer in NO_WORDS:
                return False
            self.console.print("Type y to leave, n to stay.")

    async def _read(self) -> str:
        self.console.print("> ", end="")
        line = await self._next_line()
        if line == "":  # end of input: the person is gone
            raise QuitGame
        return line.rstrip("\r\n")

    async def _next_line(self) -> str:
        reading = self._reading
        if reading is None or reading.get_loop() is not asyncio.get_running_loop():
            reading = asyncio.ensure_future(asyncio.to_thread(self.input.readline))
            self._reading = reading
        line = await asyncio.shield(reading)  # a timeout leaves the read going
        self._reading = None
        return line


def print_card(
    console: Console, private: Mapping[str, Any], language: str = "en", variant: Speakers = None
) -> None:
    """The seat's role card, one fact a line, in words (``variant``: whose words,
    several for a viewer of any game); Four Factions duels as a table."""
    rows, duels = card_rows(private, language, variant)
    console.print("[magenta]Your card:[/magenta]")
    for key, words in rows:
        console.print(f"  [magenta]{escape(key)}:[/magenta] {escape(words)}")
    if duels:
        table = Table(*duels[0], title="duels")
        for row in duels[1:]:
            table.add_row(*row)
        console.print(table)


def out_line(view: SeatView, language: str = "en") -> str:
    """ "You are out (voted out, day 2). ..." from the seat's own view."""
    record = own_death(view)
    how = ""
    if record is not None and record.get("cause"):
        cause = str(record["cause"])
        cause = CAUSES.get(cause) or lang(language, view.variant).term(cause)
        how = f" ({cause}, {phase_title(record.get('day'), 'day', language, view.variant)})"
    return (
        f"You are out of the game{how}. You will see each event your seat may see "
        "until the game ends."
    )


def history_line(
    item: HistoryItem, variant: Variant[Any, Any], seat: int, language: str = "en"
) -> str:
    """One thing the seat saw, in the one words renderer's sentence (the words of
    `sandbox view`): a speech quoted after its speaker, the seat's own answers as
    "You vote for seat 5.", the rest in the referee's voice. '' for nothing to show."""
    words = item_words(variant, item, seat, language)
    if words.speaker == seat and words.category != DECISION:  # "You say", not "Seat 3 says"
        sentence = as_you(words.sentence, seat, lang(language, variant))
        words = replace(words, sentence=sentence)
    when = phase_title(item.day, item.phase, language, variant)
    where = f"[dim]{escape(when)}[/dim]"
    if words.category == BOOKKEEPING or (words.category == DECISION and words.speech is not None):
        return ""  # engine bookkeeping; an own speech is shown under its speaker
    if words.category == DECISION:
        return f"{where} [magenta][You][/magenta] {escape(words.sentence)}"
    if words.speech is not None:
        return f'{where} [bold]{escape(words.sentence)}[/bold]: "{escape(words.speech)}"'
    return f"{where} [cyan][Referee][/cyan] {escape(words.sentence)}"


def for_people(text: str) -> str:
    """Engine wording is written for models ("null" is their word for no choice);
    a person types 'nobody', so that is the word they are shown."""
    for pattern, words in PEOPLE_WORDS:
        text = pattern.sub(words, text)
    return NULL_WORD.sub("nobody", text)


def known_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The facts without the blanks a seat cannot know: a dead seat's hidden role is
    left out rather than shown as "role none"."""
    return {key: _without_blanks(value) for key, value in facts.items()}


def _without_blanks(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_blanks(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_without_blanks(v) for v in value]
    return value


def seat_marks(view: SeatView) -> dict[int, str]:
    """The seat itself ("you") and the seats its card names as its side ("partner",
    the variant's ``VariantWords.team``), as its options mark them."""
    words = variant_words(view.variant)
    team = words.team(view.private) if words is not None and words.team is not None else ()
    marks = {int(seat): "partner" for seat in team}
    marks[view.seat] = "you"
    return marks


def seat_options(options: tuple[Scalar, ...]) -> bool:
    """Options that are seat numbers are typed as themselves, not by position."""
    return bool(options) and all(isinstance(o, int) and not isinstance(o, bool) for o in options)


def yes_no(options: tuple[Scalar, ...]) -> bool:
    """A yes/no question (its options are the booleans)."""
    return bool(options) and all(isinstance(o, bool) for o in options)


def options_text(f: Field, marks: Mapping[int, str] | None = None) -> str:
    """The options as plain text (printed escaped: "[a]" would be console markup)."""
    marks = marks or {}
    if isinstance(f, Text):
        return f"  (free text, at most {f.max_chars} characters)"
    if yes_no(f.options):
        return "  [y] yes  [n] no\n  (type y or n)"
    if seat_options(f.options):
        listed = "  ".join(
            f"[{o}] seat {o}" + (f" ({marks[o]})" if o in marks else "")
            for o in f.options
            if isinstance(o, int)
        )
        how = "the seat number in brackets"
    else:
        listed = "  ".join(f"[{LETTERS[i]}] {_shown(o)}" for i, o in enumerate(f.options[:26]))
        how = "the letter in brackets (or the word)"
    if isinstance(f, MultiChoice):
        return (
            f"  {listed}\n  (type {how}, several separated by commas; up to "
            f"{f.max_items}; an empty line for nobody)"
        )
    tail = "  or 'nobody'" if f.nullable else ""
    return f"  {listed}{tail}\n  (type {how})"


def _shown(option: Scalar) -> str:
    return "nobody" if option is None else str(option)


def parse_answer(f: Field, line: str) -> Any:
    """Turn a typed line into a field value, or raise BadInput saying what to type."""
    if isinstance(f, Text):
        return line
    text = line.strip()
    if isinstance(f, MultiChoice):
        if not text:
            return []
        return [_pick(f.options, part.strip()) for part in text.split(",")]
    if f.nullable and text.lower() in NULL_WORDS:
        return None
    return _pick(f.options, text)


def _pick(options: tuple[Scalar, ...], text: str) -> Scalar:
    wanted = text.lower()
    if yes_no(options):
        if wanted in YES_WORDS and True in options:
            return True
        if wanted in NO_WORDS and False in options:
            return False
        raise BadInput(f"'{text}' is not yes or no; type y or n.")
    if seat_options(options):
        seat = wanted.removeprefix("seat").strip()
        if seat.isdigit() and int(seat) in options:
            return int(seat)
        listed = ", ".join(str(o) for o in options)
        raise BadInput(f"'{text}' is not one of the seats {listed}; try again.")
    if len(wanted) == 1 and wanted in LETTERS[: len(options)]:
        return options[LETTERS.index(wanted)]
    by_name: Mapping[str, Scalar] = {str(o).lower(): o for o in options if isinstance(o, str)}
    if wanted in by_name:
        return by_name[wanted]
    letters = LETTERS[: min(len(options), 26)]
    raise BadInput(f"'{text}' is not one of the letters {', '.join(letters)}; try again.")
