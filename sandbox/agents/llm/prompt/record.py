"""The seat's record: every history item it has seen, as prompt lines.

Each item becomes at most two lines: the referee's wording of what happened
(the marker first), and, for a speech, who spoke and the JSON-quoted words.
The wording is the variant's words (:mod:`sandbox.words`), the very sentences
the viewer and the human seats show; the variant's ``events.j2`` gives only
the record's layout (its day/phase headers, in the viewer's phase titles, and
the speech labels). Items are
grouped under day/phase headers, in event order, and only ever appended to
between a seat's decisions, so a seat's next prompt starts with its previous
record byte for byte (the prefix cache).
A summary keeps only the referee's lines (see ``budget``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sandbox.agents.llm.prompt.templates as templates
from sandbox.agents.llm.lru import ByteLRU
from sandbox.agents.llm.prompt.escaping import (
    MARK_OPEN,
    referee_mark,
    safe_json,
    scrub,
)
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.core.words import BOOKKEEPING, Lang, Words
from sandbox.words import item_words, lang, seat_words


def speech_line(item: HistoryItem, language: str, occasion: str = "") -> str:
    """One line: who spoke (and on which occasion), then the JSON-quoted words."""
    label = "Seat" if language != "zh" else "座位"
    said = "said" if language != "zh" else "说"
    what = scrub(occasion) or item.kind
    return f"{label} {item.speaker} {said} ({what}): {safe_json(item.speech or '')}"


def referee_line(text: str, language: str) -> str:
    """The marker, then the announcement flattened to one line."""
    return f"{referee_mark(language)} {scrub(text)}"


def history_lines(
    view: SeatView,
    language: str,
    first: int = 0,
    last: int | None = None,
    speeches: bool = True,
) -> list[str]:
    """The seat's history items ``first``..``last``, grouped under day/phase
    headers; ``speeches=False`` keeps only the referee's lines (a summary)."""
    macros: Any = templates.record_macros(view.variant, language)
    lines: list[str] = []
    current: tuple[int, str] | None = None
    for item in view.history[first:last]:
        if (item.day, item.phase) != current:
            current = (item.day, item.phase)
            lines.append(scrub(macros.phase_header(item.day, item.phase)))
        item_text = _cached_item_lines(item, macros, view, language)
        if not speeches:
            item_text = [line for line in item_text if line.startswith(MARK_OPEN)]
        lines.extend(item_text)
    return lines


@dataclass(frozen=True)
class Record:
    """The record as shown: a referee-written summary of the first
    ``summarized`` items (their announcements, the ``dropped`` oldest of
    them left out), then the items from ``first`` on in full."""

    lines: list[str]
    first: int  # items before it are summarized or omitted
    summarized: int = 0
    dropped: int = 0
    summary_lines: int = 0  # the first lines of ``lines`` are the summary


def full_record(
    view: SeatView, language: str, first: int, memo: RecordMemo | None = None
) -> Record:
    if memo is None:
        return Record(history_lines(view, language, first), first)
    return Record(memo.lines(view, language, first), first)


@dataclass(frozen=True)
class HeldStep:
    """The shared layout's head of a seat's last prompt, as sent: the user
    message up to the items of its step (the record before the step, now,
    the question, the answer's fields and shape). The next step of the same
    day starts its prompt with it (render.py), so a vote after the day's
    speeches does not re-read them (issue 24)."""

    text: str
    start: int  # where the step's items begin in the public history
    key: tuple[int, str]  # the step's day and phase
    summarized: int  # items the head's record condensed


class RecordMemo:
    """One seat's rendered record so far. Its history only grows between its
    decisions, so the next decision renders only the items added since (the
    lines are the same as a full render: see tests/prompts/test_budget.py)."""

    def __init__(self) -> None:
        self._key: tuple[str, str, int] | None = None
        self._items: list[HistoryItem] = []
        self._lines: list[str] = []
        self._current: tuple[int, str] | None = None
        # The seat's last condensation (see fit_record): kept while it fits.
        self.condensed: tuple[int, int | None] | None = None
        # The head of its last shared-layout prompt (render.hold).
        self.held: HeldStep | None = None

    def lines(self, view: SeatView, language: str, first: int) -> list[str]:
        key = (view.variant.name, language, first)
        history = view.history
        count = len(self._items)
        if key != self._key or count > len(history) - first or not self._continues(history, first):
            self._key, self._items, self._lines, self._current = key, [], [], None
            count = 0
        macros: Any = templates.record_macros(view.variant, language)
        for item in history[first + count :]:
            if (item.day, item.phase) != self._current:
                self._current = (item.day, item.phase)
                self._lines.append(scrub(macros.phase_header(item.day, item.phase)))
            self._lines.extend(_cached_item_lines(item, macros, view, language))
            self._items.append(item)
        return list(self._lines)

    def _continues(self, history: Sequence[HistoryItem], first: int) -> bool:
        """The history still starts with the items already rendered."""
        if not self._items:
            return True
        last = len(self._items) - 1
        seen = history[first + last]
        return seen is self._items[last] or seen == self._items[last]


def current_step(history: Sequence[HistoryItem]) -> int:
    """How many of the last items share the last item's day and phase: the
    step under way, which the shared record shows after the question (so the
    seats who act in turn within it share everything before their card)."""
    if not history:
        return 0
    key = (history[-1].day, history[-1].phase)
    count = 0
    for item in reversed(history):
        if (item.day, item.phase) != key:
            break
        count += 1
    return count


def summarized_record(view: SeatView, language: str, upto: int, keep: int | None) -> Record:
    """Items before ``upto`` condensed to the referee's announcements (who
    died when, votes, checks the seat was told: only lines the seat already
    saw, so nothing it may not know), keeping the last ``keep`` of them."""
    summary = history_lines(view, language, 0, upto, speeches=False)
    dropped = 0 if keep is None else max(0, len(summary) - keep)
    lines = summary[dropped:] + history_lines(view, language, upto)
    return Record(lines, upto, upto, dropped, len(summary) - dropped)


# Rendered lines per history item. A seat's history is re-rendered at every
# decision and the same event reaches every seat; saying it again cost ~8 ms
# per late-game decision. Keyed by everything but the facts, which are
# compared on a hit (seats may see different facts of one event); the seat is
# in the key because its own answers are said to it ("You vote for seat 5").
# Bounded in bytes (lru.py), not in entries: a long study only fills it.
_LINES_CACHE: ByteLRU[tuple[Any, ...], tuple[Mapping[str, Any], list[str]]] = ByteLRU(8 << 20)


def _cached_item_lines(item: HistoryItem, macros: Any, view: SeatView, language: str) -> list[str]:
    key = (
        str(templates.PROMPTS_DIR),
        view.variant.name,
        None if item.public else view.seat,  # a public item reads alike for all
        language,
        item.seq,
        item.kind,
        item.day,
        item.phase,
        item.speaker,
        item.speech,
    )
    hit = _LINES_CACHE.get(key)
    if hit is not None and (hit[0] is item.facts or hit[0] == item.facts):
        return hit[1]
    variant = view.variant
    # A public item reads alike for every seat (the shared record is one
    # prefix for all): only the seat's own items are said to it as "You".
    say = item_words if item.public else seat_words
    words = say(variant, item, view.seat, language)
    lines = item_lines(item, macros, words, lang(language, variant))
    _LINES_CACHE.put(key, (item.facts, lines))
    return lines


def history_start(count: int, limit: int | None) -> int:
    """The first history item shown when at most ``limit`` recent items fit.

    The window start moves in steps of half the limit, not item by item, so
    the shown history stays append-only across several decisions of a seat and
    a prefix cache keeps reusing it (it is re-read only when the start jumps).
    """
    if limit is None or count <= limit:
        return 0
    step = max(1, limit // 2)
    return -(-(count - limit) // step) * step  # ceil to the next step


def item_lines(item: HistoryItem, macros: Any, words: Words, L: Lang) -> list[str]:
    """The item's lines: the referee's announcement (its words' sentence), then
    for a speech the JSON-quoted words under its occasion's label."""
    out: list[str] = []
    text = announcement(item, words, L)
    if text:
        out.append(referee_line(text, L.code))
    if item.speech is not None:
        occasion = macros.speech_label(item.kind) if hasattr(macros, "speech_label") else ""
        out.append(speech_line(item, L.code, occasion))
    return out


def announcement(item: HistoryItem, words: Words, L: Lang) -> str:
    """What the referee says of an item: its sentence, with a full stop. A
    speech is announced only when it carries claims, the speaker's and never
    confirmed (KG-14, WW-12): its quoted line says who spoke. Engine
    bookkeeping is not announced."""
    if words.category == BOOKKEEPING or (item.speech is not None and not words.claims):
        return ""
    sentence = words.sentence
    return sentence if sentence.endswith((".", "。", "!", "?")) else L.end(sentence)
