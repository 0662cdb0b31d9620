"""OD-7 at the terminal: an open day's ask as a chat line. The person types a
message and Enter posts it at once (it closes the round under way, as a
person's message does); Enter alone waits this round; ``+`` asks every field
of the message (its claim, accusations and vouches too).

Also the ask's instruction said to a person, at the terminal and on the page
(issue 42, OD-7): the models' instruction names the answer's field ("speak:
true"); a person is told the day, the round and the messages left in plain
words instead, read from the seat's own view (:func:`ask_facts`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.core.discussion import SPEAK
from sandbox.core.events import OpenDayStarted, RoundClosed
from sandbox.core.requests import DecisionRequest, Text
from sandbox.core.seat import DecisionContext
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.core.words import Lang
from sandbox.words.discussion import ask_words

FULL_FORM = "+"
OPENED, ROUND = OpenDayStarted.kind, RoundClosed.kind  # OD-4, OD-5: the day's landmarks
# The models' sentence of the choice and of the budget (Four Factions says the
# budget apart); what a variant says after them is its own (FF: a statement owed).
_MODEL_CHOICE = re.compile(r"^.*?\(speak: false\)\.\s*(?:You may post \d+ more today\.\s*)?", re.S)


def is_ask(request: DecisionRequest) -> bool:
    """An open day's ask with a text to type (every variant's message has one)."""
    names = {f.name for f in request.fields}
    return SPEAK in names and text_field(request) is not None


def text_field(request: DecisionRequest) -> str | None:
    return next((f.name for f in request.fields if isinstance(f, Text)), None)


@dataclass(frozen=True, slots=True)
class AskFacts:
    """The open day under way as the seat saw it (OD-4, OD-5)."""

    day: int
    round: int  # the round under way (the day opens with round 1)
    left: int  # messages the seat may still post today
    start: int  # the index of the day's opening in the seat's history


def opening(history: Sequence[HistoryItem]) -> int:
    """The index of the last open day's opening in ``history`` (-1: none)."""
    return max((i for i, item in enumerate(history) if item.kind == OPENED), default=-1)


def ask_facts(view: SeatView, seat: int) -> AskFacts | None:
    """The day, round and messages left of the open day in ``seat``'s view
    (None: no open day in it), from its public items alone: the opening's
    budget and each closed round's accepted seats."""
    history = view.history
    start = opening(history)
    if start < 0:
        return None
    closed = [item for item in history[start + 1 :] if item.kind == ROUND]
    spent = sum(list(item.facts.get("accepted", ())).count(seat) for item in closed)
    per_seat = int(history[start].facts.get("messages_per_seat", 0))
    number = max((int(item.facts.get("round", 0)) for item in closed), default=0) + 1
    return AskFacts(history[start].day, number, max(0, per_seat - spent), start)


def instruction(request: DecisionRequest, view: SeatView | None, language: str) -> str:
    """The ask's instruction for a person: the day, round and messages left in
    plain words (without a view, the choice alone), then whatever the variant
    adds after its sentence of the choice (kept as the models read it)."""
    facts = ask_facts(view, request.seat) if view is not None else None
    known = (facts.day, facts.round, facts.left) if facts is not None else None
    said = ask_words(Lang(language), known)
    found = _MODEL_CHOICE.match(request.instruction)
    rest = request.instruction[found.end() :].strip() if found else ""
    return f"{said} {rest}" if rest else said


def prompt(ctx: DecisionContext, language: str = "en") -> str:
    """The terminal's prompt of an ask: its instruction, then what to type."""
    L = Lang(language)
    how = L.say(
        en="Type your message and press Enter to post it now; Enter alone waits this round; "
        f"'{FULL_FORM}' adds a claim, accusations or vouches.",
        zh=f"输入消息并按回车即刻发出；直接按回车则本轮等待；输入“{FULL_FORM}”可附加声明、指认或担保。",
    )
    return f"{instruction(ctx.request, ctx.view, language)}\n{how}"


def answer_of(request: DecisionRequest, line: str) -> dict[str, Any] | None:
    """The answer a typed line gives: a wait (empty), a post of the line, or None
    for the full form (``+``)."""
    text = line.strip()
    if text == FULL_FORM:
        return None
    if not text:
        return {SPEAK: False}
    name = text_field(request)
    assert name is not None  # is_ask
    return {SPEAK: True, name: text}
