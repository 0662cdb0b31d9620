"""HTML for the web pages: jinja2 templates with autoescaping, so everything a
player or a model wrote reaches the page as text, never as markup.

Fragments (the view, the question, the end screen) are rendered here and
pushed to the page, which swaps them in; the page's script builds no HTML from
game data itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from sandbox.core.variant import SeatView
from sandbox.web.now import now_of
from sandbox.web.table import seat_board
from sandbox.web.words import ui
from sandbox.words import (
    BOOKKEEPING,
    DECISION,
    Words,
    card_rows,
    lang,
    phase_title,
    seat_words,
    variant_words,
)

_ENV = Environment(
    loader=PackageLoader("sandbox.web.assets", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(template: str, **context: Any) -> str:
    return _ENV.get_template(template).render(**context)


# ---------------------------------------------------------------- history


@dataclass(frozen=True)
class Entry:
    """One line of the history as the page shows it: the referee's sentence and,
    for a speech, the player's words quoted apart from it."""

    seq: int
    style: str  # "speech", "referee" or "mine"
    text: str
    speech: str | None = None
    new: bool = False


@dataclass
class Section:
    heading: str
    entries: list[Entry] = field(default_factory=list)
    day: int | None = None


@dataclass
class DayFold:
    """One day of the history, folded on the page unless it is the current day
    (or holds an item new since the seat's last turn). ``title`` "": not folded."""

    title: str
    sections: list[Section]
    open: bool = True
    key: str = ""


def fold_days(sections: Sequence[Section], language: str, variant: Any = None) -> list[DayFold]:
    """``sections`` grouped by day, the last day open (issue 38 item 3: the
    history folded by day with the current day open)."""
    days: list[DayFold] = []
    for section in sections:
        key = str(section.day or 0)
        if not days or days[-1].key != key:
            title = phase_title(section.day, "day" if section.day else None, language, variant)
            days.append(DayFold(title, [], False, key))
        days[-1].sections.append(section)
    for day in days:
        day.open = day is days[-1] or any(e.new for s in day.sections for e in s.entries)
    return days


def history_words(
    view: SeatView, language: str, kept: dict[int, Words] | None = None
) -> list[Words]:
    """Each history item of the view in words, once (the history and the seat
    board both read them). ``kept``: the words already said for this seat's view
    of this game, by sequence number (an item never changes once seen), filled in."""
    variant = view.variant
    if kept is None:
        return [seat_words(variant, item, view.seat, language) for item in view.history]
    said = []
    for item in view.history:
        words = kept.get(item.seq)
        if words is None:
            words = kept[item.seq] = seat_words(variant, item, view.seat, language)
        said.append(words)
    return said


def history_sections(
    view: SeatView, language: str, last_seen: int = -1, said: Sequence[Words] | None = None
) -> list[Section]:
    """The seat's history grouped by day and phase, in the one words renderer's
    sentences (the words of ``sandbox view``); ``said``: its items' words, if known."""
    sections: list[Section] = []
    where: tuple[int, str] | None = None
    variant = view.variant
    said = said if said is not None else history_words(view, language)
    for item, words in zip(view.history, said, strict=True):
        entry = entry_of(item.seq, words, item.seq > last_seen)
        if entry is None:
            continue
        if (item.day, item.phase) != where:
            where = (item.day, item.phase)
            heading = phase_title(item.day, item.phase, language, variant)
            sections.append(Section(heading, day=item.day))
        sections[-1].entries.append(entry)
    return sections


def entry_of(seq: int, words: Words, new: bool = False) -> Entry | None:
    """How one event in words is shown; engine bookkeeping is left out, and so is
    the seat's own speech decision (the speech itself is quoted under its speaker)."""
    if words.category == BOOKKEEPING:
        return None
    if words.category == DECISION:
        return None if words.speech is not None else Entry(seq, "mine", words.sentence, None, new)
    if words.speech is not None:
        return Entry(seq, "speech", words.sentence, words.speech, new)
    return Entry(seq, "referee", words.sentence, None, new)


# ---------------------------------------------------------------- fallbacks

DECIDED = "core.decision"  # the kind of a seat's own decision in its history
ReasonOf = Callable[[int, int], str | None]
"""The fallback reason of a seat's decision, by its ``seq`` and by ``nth`` (its
place among the seat's own decisions), where it is known (None: unknown)."""


def with_reasons(view: SeatView, language: str, reason_of: ReasonOf) -> SeatView:
    """``view`` with the reason of each of the seat's fallbacks put back in words
    ("fallback: time ran out"): a seat's view keeps the reason out, and the
    history would read "fallback: " with nothing after it (issue 38 item 4)."""
    t, nth, items = ui(language), 0, []
    for item in view.history:
        if item.kind == DECIDED:
            if item.facts.get("fallback") and not item.facts.get("fallback_reason"):
                why = t.get(f"fallback_{reason_of(item.seq, nth)}") or t["fallback_other"]
                item = dataclasses.replace(item, facts={**item.facts, "fallback_reason": why})
            nth += 1
        items.append(item)
    return dataclasses.replace(view, history=tuple(items))


# ---------------------------------------------------------------- fragments


def card_words(view: SeatView, language: str) -> tuple[list[tuple[str, str]], list[Any]]:
    """The seat's card said to it (its variant's ``VariantWords.card``, else its
    facts) and the table of a list fact (e.g. its duels)."""
    variant = view.variant
    rows, duels = card_rows(view.private, language, variant)
    words = variant_words(variant)
    if words is not None and words.card is not None:
        rows = words.card(view.private, lang(language, variant))
    return rows, duels


def render_view(
    view: SeatView, language: str, last_seen: int = -1, words: dict[int, Words] | None = None
) -> str:
    """The seat's card, what it knows now and its history (new items marked);
    ``words``: the page's kept words of this game (see :func:`history_words`)."""
    rows, duels = card_words(view, language)
    said = history_words(view, language, words)
    board, hp = seat_board(view, language, said)
    return render(
        "_view.html",
        t=ui(language),
        card=rows,
        duels=duels,
        now=now_of(view, language),
        days=fold_days(history_sections(view, language, last_seen, said), language, view.variant),
        final=False,
        board=board,
        board_hp=hp,
    )


def render_history(view: SeatView, language: str) -> str:
    """The whole history of a seat's view, alone (a spectator's end screen)."""
    days = fold_days(history_sections(view, language), language, view.variant)
    return render("_history.html", t=ui(language), days=days)


def render_final(view: SeatView, language: str) -> str:
    """The page under the end screen, rebuilt from the seat's final view: its
    history only (the card and "Now" of a finished game would be stale, and the
    results panel above says who won)."""
    return render(
        "_view.html",
        t=ui(language),
        card=[],
        duels=[],
        now=None,
        days=fold_days(history_sections(view, language), language, view.variant),
        final=True,
        board=[],
        board_hp=False,
    )


@dataclass(frozen=True)
class SeatResult:
    seat: int
    role: str  # the role revealed at the end, in words
    result: str  # "win", "lose" or "draw"
    mine: bool


def render_end(
    summary: str, results: Sequence[SeatResult], language: str, watched: int | None = None
) -> str:
    """The results panel: the outcome, the winners, the seat's own result (on
    its page; on a spectator page of seat ``watched``, that seat's result by
    number) and every seat's revealed role and result."""
    t = ui(language)
    mine = next((r for r in results if r.mine), None)
    seen = next((r for r in results if r.seat == watched), None)
    return render(
        "_end.html",
        t=t,
        summary=summary,
        results=results,
        winners=winners_words(results, language),
        own=_own_outcome(mine, t) or _watched_outcome(seen, t),
        result_words={key: t[f"result_{key}"] for key in ("win", "lose", "draw")},
    )


def winners_words(results: Sequence[SeatResult], language: str) -> str:
    """``Winners: Seats 1, 4, 9 (killer)`` — grouped by revealed role; a game
    nobody won says so."""
    t = ui(language)
    L = lang(language)
    groups: dict[str, list[int]] = {}
    for r in results:
        if r.result == "win":
            groups.setdefault(r.role, []).append(r.seat)
    if not groups:
        return t["no_winner"]
    shown = L.join(f"{L.seats(seats, capital=True)} ({role})" for role, seats in groups.items())
    return t["winners"].format(who=shown)


def _own_outcome(mine: SeatResult | None, t: Mapping[str, str]) -> str:
    if mine is None:
        return ""
    return t[f"you_{mine.result}"].format(role=mine.role) if f"you_{mine.result}" in t else ""


def _watched_outcome(seen: SeatResult | None, t: Mapping[str, str]) -> str:
    if seen is None or f"seat_{seen.result}" not in t:
        return ""
    return t[f"seat_{seen.result}"].format(n=seen.seat, role=seen.role)


def render_entries(entries: Sequence[Entry], language: str) -> str:
    """A flat list of history lines (the referee's view for spectators)."""
    days = [DayFold("", [Section("", list(entries))])]
    return render("_history.html", t=ui(language), days=days)
