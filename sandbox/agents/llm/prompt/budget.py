"""The context budget: how many prompt tokens a decision may take, and the
record condensed to fit them.

Over the budget the oldest items are condensed to the referee's own
announcements (``fit_record``): never by a model, never beyond the seat's view.
The summary comes first and its note after it, so a condensation that grows
keeps the lines before it, and a seat keeps its condensation while it fits
(``RecordMemo.condensed``), so its prompts keep one prefix for a while.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sandbox.agents.llm.prompt.record import (
    Record,
    RecordMemo,
    full_record,
    history_lines,
    summarized_record,
)
from sandbox.core.variant import HistoryItem, SeatView

# The condensed part of the record ends on a multiple of this many items, so it
# changes seldom and the prompt stays a prefix-cache hit in between.
SUMMARY_STEP = 16
# A seat's new condensation fits this share of its budget, so its record can
# grow over several decisions before the condensation (and the prefix) changes.
CONDENSE_SLACK = 0.8
# Kept free in the window for the answer when max_tokens is not set, and a
# margin for the token estimate (4 characters a token is not a tokenizer).
ANSWER_RESERVE_TOKENS = 1024
ESTIMATE_MARGIN = 0.9
OVERFLOW_SHRINK = 0.75  # the retry after an overflow: a budget a quarter smaller
MIN_BUDGET_TOKENS = 256
# The provider's own count over the estimate, as a seat has seen it: a small
# model's tokenizer cuts this text (seat numbers, JSON, the referee's marker)
# at ~2.5 characters a token, not 4. Never below 1 (the estimate only
# tightens), never above MAX_TOKEN_RATIO (a nonsense usage report).
MAX_TOKEN_RATIO = 4.0
# The shared record (one table's seats sharing a prefix, render.py): its
# condensation depends on the public record and the model's window alone, so
# every seat of a step condenses at the same item and the prefix stays one
# (a per-seat fit condensed the seats with long secrets first: a police seat's
# prompt then shared only the system message with the others'). It keeps
# whole days (a night and the day after it: the items' ``day``): the system
# message and the public record before the step under way take at most
# SHARED_WINDOW_SHARE of the window (measured on the days before today, so
# the choice holds all day: today's items come on top), counted for a tokenizer
# SHARED_TOKEN_RATIO times denser than the estimate (SmolLM2's is ~1.6),
# which leaves the rest for the step's own items (a day's speeches, ~1,000
# tokens), the card, the secrets and the answer. In the local model's
# 4,096-token window that is the day under way and a summary of the day
# before. Before, boundaries fell every 48 items (about two days of Killer)
# against half the window, and late prompts grew past 3,000 tokens, where the
# local server reads a prompt at half the speed of one of 1,000, and a seat
# with long secrets then condensed on its own (issue 24). The seat's own
# budget is still checked after it (fit_record).
SHARED_WINDOW_SHARE = 0.45
SHARED_TOKEN_RATIO = 1.75
# A way to condense the record: (items summarized, announcements kept of the
# summary, or None for all of them); see condense_choices.
Condensation = tuple[int, int | None]


def estimate_tokens(text: str) -> int:
    """A conservative token count without a tokenizer: four ASCII characters
    a token, every other character a token (CJK text is about one a character)."""
    wide = (len(text.encode("utf-8")) - len(text)) // 2
    return (len(text) - wide) // 4 + wide + 1


def prompt_budget(
    window: int | None, max_tokens: int | None, learned: int | None, ratio: float = 1.0
) -> int | None:
    """Prompt tokens allowed, in ``estimate_tokens`` units: the window less
    the answer, with a margin for the estimate, divided by ``ratio`` (the
    provider's tokens per estimated token, :func:`token_ratio`), and no more
    than ``learned`` (what fitted after an overflow, already in estimate
    units); None when neither is known."""
    budgets = [learned] if learned is not None else []
    if window is not None:
        reserve = max_tokens or ANSWER_RESERVE_TOKENS
        room = int((window - reserve) * ESTIMATE_MARGIN / ratio)
        budgets.append(max(MIN_BUDGET_TOKENS, room))
    return min(budgets, default=None)


def shared_room(window: int | None) -> int | None:
    """Estimated tokens the shared part of a shared-record prompt (system
    message and public record) may take: the same for every seat of one model;
    None without a known window."""
    if window is None:
        return None
    return max(MIN_BUDGET_TOKENS, int(window * SHARED_WINDOW_SHARE / SHARED_TOKEN_RATIO))


def shared_condensation(
    view: SeatView,
    language: str,
    whole: Record,
    room: int,
    render: Callable[[Record], tuple[str, int]],
) -> Record | None:
    """The shared record's condensation: the least-condensed record whose
    shared part (the message ``render`` gives, up to its cache mark) fits
    ``room`` for the days before today (the items before the latest day
    start), in whole days (:func:`day_starts`): condensed up to a day start,
    then, past the latest, the oldest days of the summary left out too (who
    is dead stays in the prompt's "Now"); the most condensed when none fits
    (the seat's own fit then goes further). None when the days before today
    fit or no day with speeches has ended since the record's first item. A
    function of the (public) view alone, so equal for every seat, and it
    changes only where a day begins: today's items come on top of ``room``."""

    def shared_part(record: Record) -> tuple[str, int]:
        text, cut = render(record)
        return text[:cut], cut

    history = view.history
    starts = day_starts(history)
    if not starts:
        return None
    # Measured on the days before today only, so the choice stays the same all
    # day: it changes once, where a day begins, not again at a step of the
    # day (each change re-reads the record from its start, ~1,000-1,450
    # tokens in issue 24's games; today's items come on top of the room).
    today = starts[-1]
    past = dataclasses.replace(view, history=history[:today])
    # Condensing drops speeches only: a start with none before it would just
    # add the condensation's note (Killer's setup before night 1).
    bounds = [
        b
        for b in starts
        if b > whole.first and any(i.speech is not None for i in history[whole.first : b])
    ]
    if (
        not bounds
        or estimate_tokens(shared_part(full_record(past, language, whole.first))[0]) <= room
    ):
        return None
    latest = bounds[-1]
    # the summary's last lines from each later day start on (fewer and fewer
    # whole days), then none of it
    kept = [len(history_lines(view, language, a, latest, speeches=False)) for a in starts]
    choices: list[tuple[int, int | None]] = [(b, None) for b in bounds]
    choices += [(latest, keep) for a, keep in zip(starts, kept, strict=True) if 0 < a < latest]
    choices.append((latest, 0))
    low = _first_fit(choices, room, _size_of(past, language, shared_part))
    return summarized_record(view, language, *choices[low])


def day_starts(history: Sequence[HistoryItem]) -> list[int]:
    """The index of each item that begins a new day (its ``day`` differs from
    the item before it): where the shared record may condense."""
    return [i for i in range(1, len(history)) if history[i].day != history[i - 1].day]


def token_ratio(previous: float, tokens_in: int, estimated: int) -> float:
    """The most provider tokens per estimated token seen so far: ``previous``
    or this call's ``tokens_in / estimated``, within [1, MAX_TOKEN_RATIO].
    A call without a usage report (``tokens_in`` 0) changes nothing."""
    if tokens_in <= 0 or estimated <= 0:
        return previous
    return max(previous, min(MAX_TOKEN_RATIO, tokens_in / estimated))


def after_overflow(budget: int | None, tokens: int) -> int:
    """The budget for the one retry after a provider said the prompt of
    ``tokens`` did not fit: a quarter tighter than what was sent."""
    return int(min(budget or tokens, tokens) * OVERFLOW_SHRINK)


def fit_record(
    view: SeatView,
    language: str,
    first: int,
    budget: int,
    render: Callable[[Record], tuple[str, int]],
    memo: RecordMemo | None = None,
) -> tuple[Record, tuple[str, int]]:
    """The least-condensed record whose user message fits ``budget`` tokens:
    first condense more and more old items (in steps of SUMMARY_STEP, so the
    prompt prefix stays stable), then, if all of them condensed still do not
    fit, keep fewer of the oldest announcements. Without any fit, the
    shortest record (the current situation still states who is alive).

    With the seat's ``memo``, the condensation is sticky, so the seat's prompts
    keep one prefix over several decisions: its previous choice is kept while
    it still fits, and a new one is made to fit CONDENSE_SLACK of the budget,
    leaving room for the record to grow before it has to change again (each
    change rewrites everything after the system message)."""
    choices = condense_choices(view, language, first)
    previous = memo.condensed if memo is not None else None
    if previous is not None and previous in choices:
        kept = summarized_record(view, language, *previous)
        text, cut = render(kept)
        if estimate_tokens(text) <= budget:
            return kept, (text, cut)
    size = _size_of(view, language, render)
    if memo is not None:
        chosen = _sticky_choice(choices, len(view.history), budget, size)
        if chosen is not None:
            memo.condensed = chosen
            record = summarized_record(view, language, *chosen)
            return record, render(record)
    low = _first_fit(choices, budget, size)
    record = summarized_record(view, language, *choices[low])
    return record, render(record)


def _sticky_choice(
    choices: Sequence[Condensation], count: int, budget: int, size: Callable[[Condensation], int]
) -> Condensation | None:
    """A condensation that later decisions can keep: a step boundary (the
    record of ``count`` items after it only grows), fitting CONDENSE_SLACK of
    the budget if one does, else the budget; None when only condensing
    everything fits."""
    steps = [c for c in choices if c[1] is None and c[0] < count]
    if not steps:
        return None
    for room in (int(budget * CONDENSE_SLACK), budget):
        low = _first_fit(steps, room, size)
        if size(steps[low]) <= room:
            return steps[low]
    return None


def condense_choices(view: SeatView, language: str, first: int) -> list[tuple[int, int | None]]:
    """Every way to condense the record, least condensed first: (items
    summarized, announcements kept of the summary or None for all)."""
    count = len(view.history)
    bounds = [b for b in range(SUMMARY_STEP, count, SUMMARY_STEP) if b > first] + [count]
    choices: list[tuple[int, int | None]] = [(b, None) for b in bounds]
    summary_lines = len(history_lines(view, language, 0, count, speeches=False))
    choices += [(count, keep) for keep in range(summary_lines - SUMMARY_STEP, -1, -SUMMARY_STEP)]
    choices.append((count, 0))
    return choices


def _size_of(
    view: SeatView, language: str, render: Callable[[Record], tuple[str, int]]
) -> Callable[[Condensation], int]:
    """The tokens of the message ``render`` makes of the record condensed so."""

    def size(condensation: Condensation) -> int:
        return estimate_tokens(render(summarized_record(view, language, *condensation))[0])

    return size


def _first_fit(
    choices: Sequence[Condensation], budget: int, size: Callable[[Condensation], int]
) -> int:
    """The index of the first choice whose message fits ``budget`` (the last
    choice when none does): each choice is shorter than the one before."""
    low, high = 0, len(choices) - 1
    while low < high:  # binary search
        middle = (low + high) // 2
        if size(choices[middle]) <= budget:
            high = middle
        else:
            low = middle + 1
    return low
