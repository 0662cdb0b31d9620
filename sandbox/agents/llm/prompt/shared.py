"""The shared record's layout: which history items every seat of a step
reads alike and which only the seat does.

In the compact style with ``shared_record`` on (see :mod:`.render`), seats of
a step share the public record as a cache prefix: the public items first, the
options said alike for every seat, then the step under way, and only after
them the seat's card and secret items. These functions cut a seat's view and
its answer fields along that line; :mod:`.render` lays the pieces out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sandbox.agents.llm.prompt.record import current_step, history_lines
from sandbox.core.events import DecisionMade
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import HistoryItem, SeatView, Variant


def step_under_way(history: Sequence[HistoryItem]) -> tuple[int, int, str] | None:
    """Where the step under way begins in ``history``, its day and phase
    (None: no item yet)."""
    count = current_step(history)
    if not count:
        return None
    last = history[-1]
    return len(history) - count, last.day, last.phase


def own_field_names(variant: Variant[Any, Any], request: DecisionRequest) -> tuple[str, ...]:
    """The request's fields that only some seats of a step are asked (the
    variant's ``own_fields``): the shared layout lists them after the card."""
    own = variant.info.own_fields
    return tuple(f.name for f in request.fields if f.name in own)


def public_view(view: SeatView) -> SeatView:
    """The view with only the history items every seat saw."""
    return dataclasses.replace(view, history=tuple(i for i in view.history if i.public))


def secret_view(view: SeatView) -> SeatView:
    """The view with only the history items some seats did not see."""
    return dataclasses.replace(view, history=tuple(i for i in view.history if not i.public))


def secret_record(view: SeatView) -> SeatView:
    """The secret items the shared record shows after the role card: those of
    :func:`secret_view` less what the card or the public record says again
    (the variant's ``card_kinds`` and ``restated_answers``)."""
    info = view.variant.info

    def restated(item: HistoryItem) -> bool:
        if item.kind in info.card_kinds:
            return True
        facts = item.facts
        return (
            item.kind == DecisionMade.kind
            and facts.get("decision") in info.restated_answers
            and not facts.get("fallback")
        )

    secret = secret_view(view)
    return dataclasses.replace(secret, history=tuple(i for i in secret.history if not restated(i)))


def split_step(
    view: SeatView, language: str, lines: list[str], first: int = 0
) -> tuple[list[str], list[str]]:
    """The shared record's lines before the step under way, and the step's
    own lines (its header and items: :func:`record.current_step`). Shown after
    the question, the step's lines are what changes between the seats who act
    in turn (each speech), so a seat re-reads only the newest item and its own
    card, not the question again; the step's first seat reads them once.
    ``first``: the first item ``lines`` show in full (a condensation may end
    inside the step: then only the step's items in full move)."""
    count = current_step(view.history)
    if not count:
        return lines, []
    step = history_lines(view, language, max(len(view.history) - count, first))
    if len(step) > len(lines) or lines[len(lines) - len(step) :] != step:
        return lines, []  # condensed away: nothing to move
    return lines[: len(lines) - len(step)], step


def shared_options(f: dict[str, Any], view: SeatView) -> dict[str, Any]:
    """A field as every seat of a step can read it alike: options that are
    the living seats but the seat's own are shown as all living seats, "never
    your own seat" (the card, after them, says which). Other options are
    left as they are (still exact, only not shared)."""
    living = view.public.get("living")
    options = f["options"]
    if (
        f["kind"] not in ("choice", "multi")
        or not isinstance(living, list)
        or view.seat not in living
        or view.seat in options
        or sorted(map(str, [*options, view.seat])) != sorted(map(str, living))
    ):
        return f
    return {**f, "options": list(living), "not_self": True}
