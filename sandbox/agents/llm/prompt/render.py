"""The two chat messages of one decision, laid out for prompt caches.

Providers' and llama.cpp's caches reuse the longest prefix they have seen, so
each prompt of a seat starts, byte for byte, with the system text and the
record of its previous prompt:

1. ``system``: first the part identical for every seat of a game (primer,
   rules text, how to read the record), then the seat's role card and fixed
   private facts. It is identical for every decision of one seat in one game;
   ``prefix_chars`` is its length.
2. ``user``: the record of what the seat has seen (``record``), only ever
   appended to between its decisions (``cache_chars``: where it ends), then a
   short volatile tail: the situation "now" (day, living seats, own status),
   the question (instruction, rule id, legal options) and the answer format.
   The full style's "now" leaves out the tables the record already states
   line by line (Four Factions' claims, accusations and protections, Killer's
   ballots): re-rendered at every decision, they were most of the tail; the
   compact style keeps them, as its record is a window.

Two styles (``[llm] prompt_style``): ``full`` (default, for real models) gives
the whole rules text; ``compact`` (for small local models) gives a short
primer, the role card, only the most recent ``history_items`` history items
(saying how many were omitted) and a terse question. ``shared_record`` (compact
only) moves the role card out of the system message: the user message shows
the public items first (the same text for every seat), then now, the question
and the answer's fields (options said alike for every seat), then the public
items of the step under way, and last the card and the seat's secret items, so
seats share the record as a prefix and a seat acting right after another
re-reads only the newest item and its own card. A step that follows the
seat's previous step on the same day (a vote after the day's speeches)
starts with that prompt's head as sent, then that step's items, then its
own question (``held_prompt``), so its seats re-read none of those items.
Everything is rendered from the seat's views (the ``SeatView`` now and, for
that head, the one of its previous decision), the ``DecisionRequest`` and the
public rules text, never from the game state.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.agents.llm.beliefs import probe_for
from sandbox.agents.llm.prompt.budget import estimate_tokens, fit_record, shared_condensation
from sandbox.agents.llm.prompt.escaping import referee_mark, scrub
from sandbox.agents.llm.prompt.record import (
    HeldStep,
    Record,
    RecordMemo,
    full_record,
    history_lines,
    history_start,
)
from sandbox.agents.llm.prompt.shared import (
    own_field_names,
    public_view,
    secret_record,
    shared_options,
    split_step,
    step_under_way,
)
from sandbox.agents.llm.prompt.templates import (
    COMPACT,
    candidates,
    decision_candidates,
    resolve,
    template,
)
from sandbox.agents.llm.settings import PromptStyle, limits_for
from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Text
from sandbox.core.variant import SeatView, Variant


@dataclass(frozen=True)
class RenderedPrompt:
    messages: list[dict[str, str]]
    prefix_chars: int  # the system message: fixed for a seat's whole game
    # Where the stable part of the user message ends (after the record, before
    # "now" and the question): the second cache breakpoint.
    cache_chars: int = 0
    summarized: int = 0  # history items condensed to fit the context budget
    tokens: int = 0  # estimate_tokens of the whole prompt
    # The shared record's layout: where the answer's shape goes in the user
    # message (after its fields, before the step's items and the seat's own
    # part: AnswerFormat.messages). None: at its end.
    answer_chars: int | None = None
    # The shared record's layout: the request's fields listed after the card
    # (the variant's ``own_fields``), which the hint's shape leaves out.
    own_fields: tuple[str, ...] = ()
    # The shared record's layout: the step under way, as (where its items
    # begin in the public history, its day, its phase), for hold(); None
    # when it has no item yet or the layout is the seat's own.
    step: tuple[int, int, str] | None = None


# Put after the record by the user templates, cut out here: where the part of
# the user message that only grows between a seat's decisions ends.
CACHE_MARK = "\x00cache\x00"
# Put after the answer's fields by the shared layout's template, cut out last:
# where the grammar's shape hint goes (RenderedPrompt.answer_chars).
ANSWER_MARK = "\x00answer\x00"


def field_view(f: Field, text_cap: int | None = None, wording: str = "") -> dict[str, Any]:
    """A template-friendly description of one answer field (``text_cap``: the
    answer schema's own, tighter limit on free text, if any; ``wording``: the
    language's own description of the field, replacing the engine's English)."""
    description = wording or f.description
    if isinstance(f, Text):
        chars = f.max_chars if text_cap is None else min(f.max_chars, text_cap)
        return {
            "name": f.name,
            "kind": "text",
            "description": description,
            "max_chars": chars,
            "options": [],
            "nullable": False,
            "max_items": 0,
            "not_self": False,
        }
    if isinstance(f, MultiChoice):
        return {
            "name": f.name,
            "kind": "multi",
            "description": description,
            "options": list(f.options),
            "nullable": False,
            "max_items": f.max_items,
            "max_chars": 0,
            "not_self": False,
        }
    assert isinstance(f, Choice)
    return {
        "name": f.name,
        "kind": "choice",
        "description": description,
        "options": list(f.options),
        "nullable": f.nullable,
        "max_items": 0,
        "max_chars": 0,
        "not_self": False,
    }


def render_prompt(
    view: SeatView,
    request: DecisionRequest,
    *,
    language: str = "en",
    rules_text: str = "",
    belief_probe: bool = False,
    style: PromptStyle = "full",
    history_items: int | None = None,
    shared_record: bool = False,
    budget_tokens: int | None = None,
    memo: RecordMemo | None = None,
    shared_room: int | None = None,
    note: bool = True,
) -> RenderedPrompt:
    """The two chat messages for one decision (see the module docstring).

    ``budget_tokens``: the most the prompt may take (the model's window less
    the answer). Over it, the oldest history is replaced by the referee's
    summary (:func:`fit_record`): never by a model, never beyond the view.
    ``memo``: the seat's rendered record so far, extended instead of redone.
    ``shared_room`` (shared record only, :func:`budget.shared_room`): the most
    the system message and public record may take; over it the public record
    is condensed at a point every seat computes alike, before the seat's own
    budget is checked. ``note``: the answer begins with a private note
    (``[llm] private_note``).
    """
    shared = shared_layout(style, shared_record)
    system = render_system(
        view, language=language, rules_text=rules_text, style=style, shared=shared, note=note
    )
    # Shared: the record shows the public items only; the seat's secret ones
    # come after its role card, below the part every seat has in common.
    secret = history_lines(secret_record(view), language) if shared else None
    if shared:
        view = public_view(view)
    first = history_start(len(view.history), history_items)
    own = own_field_names(view.variant, request) if shared else ()

    def user_text(record: Record, held: bool = False) -> str:
        return render_user(
            view,
            request,
            record,
            language=language,
            belief_probe=belief_probe,
            style=style,
            secret=secret,
            own_fields=own,
            held=held,
            note=note,
        )

    def render(record: Record) -> tuple[str, int]:
        return cut_cache_mark(user_text(record))

    if shared and memo is not None and memo.held is not None:
        held = held_prompt(view, memo.held, system, budget_tokens, own, language, user_text)
        if held is not None:
            return held
    record = full_record(view, language, first, memo)
    if shared and shared_room is not None:
        room = shared_room - estimate_tokens(system)
        record = shared_condensation(view, language, record, room, render) or record
    user, cache_chars = render(record)
    if budget_tokens is not None and estimate_tokens(system + user) > budget_tokens:
        room = budget_tokens - estimate_tokens(system)
        record, (user, cache_chars) = fit_record(view, language, first, room, render, memo)
    elif memo is not None:
        memo.condensed = None  # the whole record fits again
    user, answer_chars = cut_answer_mark(user)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return RenderedPrompt(
        messages,
        len(system),
        cache_chars,
        record.summarized,
        estimate_tokens(system + user),
        answer_chars,
        own,
        step_under_way(view.history) if shared else None,
    )


def held_prompt(
    view: SeatView,
    held: HeldStep,
    system: str,
    budget_tokens: int | None,
    own: tuple[str, ...],
    language: str,
    user_text: Callable[[Record, bool], str],
) -> RenderedPrompt | None:
    """The shared layout's prompt for a step that directly follows the step
    of the seat's previous prompt (``held``, kept in its memo), on the same
    day: that prompt's head as sent, then all of that step's items, then
    now, the question and the rest as usual (``user_text``: render_prompt's
    user message for a record, here after a held head). The seats of a vote
    that follows the day's speeches thus share the speeches with the last
    speaker's prompt instead of re-reading them after a new question (issue
    24). ``view`` is the public view; ``own``: the request's own fields. None
    when it does not apply or the prompt would be over ``budget_tokens`` (the
    usual layout then condenses as it must)."""
    history = view.history
    step = step_under_way(history)
    if step is None or not held.start < step[0]:
        return None
    before = history[held.start : step[0]]
    if any((i.day, i.phase) != held.key for i in before) or held.key[0] != step[1]:
        return None  # not the step right before this one, or another day
    lines = history_lines(view, language, held.start)
    tail = user_text(Record(lines, held.start, held.summarized), True)
    user, cache_chars = cut_cache_mark(held.text + tail)
    if budget_tokens is not None and estimate_tokens(system + user) > budget_tokens:
        return None
    user, answer_chars = cut_answer_mark(user)
    return RenderedPrompt(
        [{"role": "system", "content": system}, {"role": "user", "content": user}],
        len(system),
        cache_chars,
        held.summarized,
        estimate_tokens(system + user),
        answer_chars,
        own,
        step,
    )


def hold(memo: RecordMemo, rendered: RenderedPrompt, sent: Sequence[Mapping[str, str]]) -> None:
    """Keep the head of the prompt as ``sent`` (the rendered messages with
    the answer's shape inserted) for the seat's next decision (held_prompt);
    forget it when the prompt has no step under way or no shared head."""
    memo.held = None
    if rendered.step is None or rendered.answer_chars is None:
        return
    user = sent[-1]["content"]
    inserted = len(user) - len(rendered.messages[-1]["content"])
    start, day, phase = rendered.step
    memo.held = HeldStep(
        user[: rendered.answer_chars + inserted], start, (day, phase), rendered.summarized
    )


def shared_layout(style: PromptStyle, shared_record: bool) -> bool:
    """Whether prompts take the shared record's layout (compact style only)."""
    return shared_record and style == COMPACT


def cut_cache_mark(text: str) -> tuple[str, int]:
    """The text without CACHE_MARK, and where the mark was."""
    head, _, tail = text.partition(CACHE_MARK)
    return head + tail, len(head)


def cut_answer_mark(text: str) -> tuple[str, int | None]:
    """The text without ANSWER_MARK, and where the mark was (None: no mark)."""
    head, found, tail = text.partition(ANSWER_MARK)
    return (head + tail, len(head)) if found else (text, None)


def render_system(
    view: SeatView,
    *,
    language: str = "en",
    rules_text: str = "",
    style: PromptStyle = "full",
    shared: bool = False,
    note: bool = True,
) -> str:
    """The stable prefix: the text shared by every seat first (primer, rules,
    reading guide), then the seat and its fixed private facts; nothing that
    changes during the game. The compact style leaves out the full rules text."""
    names = functools.partial(candidates, view.variant, language, style=style)
    return template(view.variant, language, "system.j2", style).render(
        reasoning_chars=limits_for(style, note).reasoning_chars,
        variant=view.variant.name,
        seat=view.seat,
        private=view.private,
        rules_text=rules_text if style != COMPACT else "",
        # The primer's rule summary only when the full rules text is absent:
        # the full text states every rule (with IDs), the summary only repeats it.
        summary=style == COMPACT or not rules_text,
        marker=referee_mark(language),
        primer=resolve(names("primer.j2")),
        role_card=resolve(names("role_card.j2")),
        shared=shared,
    )


def render_user(
    view: SeatView,
    request: DecisionRequest,
    record: Record | None = None,
    *,
    language: str = "en",
    belief_probe: bool = False,
    style: PromptStyle = "full",
    history_items: int | None = None,
    secret: list[str] | None = None,
    own_fields: Sequence[str] | None = None,
    held: bool = False,
    note: bool = True,
) -> str:
    """The user message: the record (``record``, by default the last
    ``history_items`` items), then now and the question. It still holds
    CACHE_MARK where the record ends and, in the shared layout, ANSWER_MARK
    after the answer's fields (render_prompt cuts both out).
    ``secret``: the shared layout's secret record (the view's other items,
    as lines), shown after the role card and the public ``record``;
    ``own_fields``: its fields listed after the card (None: the variant's,
    :func:`own_field_names`). ``held``: the text goes after a held head
    (held_prompt), so the record's lines are the step before this one's,
    shown as that step's items."""
    if record is None:
        record = full_record(view, language, history_start(len(view.history), history_items))
    names = functools.partial(candidates, view.variant, language, style=style)
    text_cap = limits_for(style).text_chars
    fields = _fields(view.variant, language, request, text_cap)
    history = record.lines[record.summary_lines :]
    step: list[str] = []
    own: list[dict[str, Any]] = []
    if secret is not None:
        history, step = split_step(view, language, history, record.first)
        fields = [shared_options(f, view) for f in fields]
        mine = own_field_names(view.variant, request) if own_fields is None else own_fields
        own = [f for f in fields if f["name"] in mine]
        fields = [f for f in fields if f["name"] not in mine]
    return template(view.variant, language, "user.j2", style).render(
        variant=view.variant.name,
        seat=view.seat,
        private=view.private,
        public=view.public,
        summary=record.lines[: record.summary_lines],
        history=history,
        step=step,
        omitted=record.first - record.summarized,
        summarized=record.summarized,
        dropped=record.dropped,
        cache_mark=CACHE_MARK,
        answer_mark=ANSWER_MARK,
        request=request,
        fields=fields,
        own_fields=own,
        reasoning_chars=limits_for(style, note).reasoning_chars,
        probe=probe_for(view) if belief_probe else None,
        state=resolve(names("state.j2")),
        decision=resolve(decision_candidates(view.variant, language, request.decision, style)),
        beliefs=resolve(names("beliefs.j2")),
        shared=secret is not None,
        secret=secret or [],
        role_card=resolve(names("role_card.j2")),
        held=held,
    )


def _fields(
    variant: Variant[Any, Any], language: str, request: DecisionRequest, text_cap: int | None
) -> list[dict[str, Any]]:
    wording: Any = template(variant, language, "fields.j2").module
    return [
        field_view(f, text_cap, scrub(wording.describe(request.decision, f.name)))
        for f in request.fields
    ]
