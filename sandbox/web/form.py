"""The open question as a form: one control per field, each offering exactly
the legal values, in words ("Seat 3 (you)", "Seat 7 (partner)", "Nobody /
abstain"), with the label its confirmation uses ("Your vote: Seat 2").

An option the referee refuses on its own (one's own seat to accuse, a faction
the rules forbid now) is left out: each option is tried in the referee's dry
run before the form is shown (issue 38 item 3), so a person is never offered
what will be refused."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.agents.human import open_day
from sandbox.agents.human.terminal import for_people
from sandbox.core.discussion import SPEAK
from sandbox.core.errors import IllegalDecision, RefereeError
from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Text
from sandbox.core.variant import SeatView
from sandbox.web.pages import render
from sandbox.web.table import seat_marks
from sandbox.web.words import field_words, label, option_words, ui, value_words
from sandbox.words import lang, variant_words

DRY_RUN_WORDS = "..."  # the text of a post tried in the dry run only, never sent
# Up to this many options a choice is a row of radio buttons, beyond it a select.
RADIO_LIMIT = 20  # 16 Killer players and "nobody" stay radios


@dataclass(frozen=True)
class OptionView:
    value: str  # JSON, parsed back by the page
    words: str


@dataclass(frozen=True)
class FieldView:
    name: str
    kind: str  # "choice", "select", "multi" or "text"
    title: str
    description: str
    options: tuple[OptionView, ...] = ()
    limit: int = 0
    confirm: str = ""  # "Your vote", said before the answer in the confirmation
    required: bool = False  # the page asks for it before sending


Refused = Mapping[str, frozenset[str]]
"""Field name -> the options (as JSON text) the referee refuses on their own."""


def field_view(
    f: Field,
    language: str,
    marks: Mapping[int, str] | None = None,
    confirm: str = "",
    refused: frozenset[str] = frozenset(),
) -> FieldView:
    t = ui(language)
    description = for_people(f.description)
    confirm = confirm or t["your_field"].format(what=field_words(f.name, language))
    if isinstance(f, Text):
        return FieldView(
            f.name, "text", label(f.name), description, limit=f.max_chars, confirm=confirm
        )
    values = f.options if isinstance(f, MultiChoice) else f.legal()
    offered = [o for o in values if json.dumps(o) not in refused]
    options = tuple(OptionView(json.dumps(o), _marked(o, t, marks or {})) for o in offered)
    if isinstance(f, MultiChoice):
        return FieldView(f.name, "multi", label(f.name), description, options, f.max_items, confirm)
    kind = "choice" if len(options) <= RADIO_LIMIT else "select"
    return FieldView(
        f.name, kind, label(f.name), description, options, confirm=confirm, required=not f.optional
    )


def _marked(option: object, t: Mapping[str, str], marks: Mapping[int, str]) -> str:
    words = option_words(option, t)
    if isinstance(option, int) and not isinstance(option, bool) and option in marks:
        return f"{words} ({marks[option]})"
    return words


def render_form(
    request: DecisionRequest,
    language: str,
    view: SeatView | None = None,
    game: str = "",
    refused: Refused | None = None,
) -> str:
    """The open question: one control per field, each offering exactly the legal
    values, the seat itself and its side marked in the options. ``game`` names
    the game (its seed) in the key the page keeps a draft under; ``refused``:
    the options left out (see :func:`refused_options`)."""
    refused = refused or {}
    marks = seat_marks(view, language)
    chat = open_chat(view, request.seat, language) if view is not None else None
    # OD-5: an open day's ask is a message box with Send (speak: true) and Wait
    # (speak: false) buttons, not a yes/no field
    speak = any(f.name == SPEAK for f in request.fields)
    shown = [f for f in request.fields if f.name != SPEAK]
    choices = [f for f in shown if isinstance(f, Choice) and not f.optional]
    t = ui(language)
    # A question with one required choice names it after the decision: "Your vote".
    decision = t["your_field"].format(
        what=lang(language, view.variant if view is not None else None).term(request.decision)
    )
    return render(
        "_form.html",
        t=t,
        request=request,
        notes=decision_notes(request, language, view),
        draft=draft_key(game, request, chat.day if speak and chat is not None else None),
        # OD-7 (issue 42): a person is told the ask in plain words, not the models' fields
        instruction=open_day.instruction(request, view, language)
        if speak
        else for_people(request.instruction),
        speak=speak,
        chat=chat if speak else None,
        fields=[
            field_view(
                f, language, marks, decision if choices == [f] else "", refused.get(f.name, _NONE)
            )
            for f in shown
        ],
    )


_NONE: frozenset[str] = frozenset()


def refused_options(request: DecisionRequest, validate: Callable[[object], Any]) -> Refused:
    """Per field, the options the referee refuses on their own: each one tried in
    a dry run (``validate``, which raises IllegalDecision) with the rest of the
    answer at its simplest legal value. A field keeps all its options when every
    one is refused alone (they may be legal only together), and nothing is left
    out when no simplest legal answer is found."""
    base = _simplest(request, validate)
    if base is None:
        return {}
    refused: dict[str, frozenset[str]] = {}
    for f in request.fields:
        if isinstance(f, Text) or f.name == SPEAK:
            continue
        values = f.options if isinstance(f, MultiChoice) else f.legal()
        bad = frozenset(
            json.dumps(o)
            for o in values
            if not _accepted(validate, {**base, f.name: [o] if isinstance(f, MultiChoice) else o})
        )
        if bad and len(bad) < len(values):
            refused[f.name] = bad
    return refused


def _simplest(request: DecisionRequest, validate: Callable[[object], Any]) -> dict[str, Any] | None:
    """The simplest legal answer: no text, no picks, optional choices left out and
    each required choice its first option the referee accepts with the rest. An
    open day's ask (OD-5) is tried as a post of a few words, since a wait would
    accept every option and an empty post says nothing (OD-2)."""
    speak = any(f.name == SPEAK for f in request.fields)
    answer: dict[str, Any] = {SPEAK: True} if speak else {}
    for f in request.fields:
        if isinstance(f, Text):
            answer[f.name] = DRY_RUN_WORDS if speak else ""
        elif isinstance(f, MultiChoice):
            answer[f.name] = []
    for f in request.fields:
        if isinstance(f, Choice) and not f.optional and f.name not in answer:
            answer[f.name] = f.legal()[0] if f.legal() else None
    if _accepted(validate, answer):
        return answer
    for f in request.fields:  # a first option refused: the next ones, field by field
        if isinstance(f, Choice) and not f.optional and f.name != SPEAK:
            fits = [o for o in f.legal() if _accepted(validate, {**answer, f.name: o})]
            if fits:
                answer[f.name] = fits[0]
    return answer if _accepted(validate, answer) else None


def _accepted(validate: Callable[[object], Any], answer: dict[str, Any]) -> bool:
    try:
        validate(answer)
    except IllegalDecision:
        return False
    except RefereeError:  # the question closed meanwhile: nothing to learn here
        return True
    return True


def draft_key(game: str, request: DecisionRequest, open_day: int | None = None) -> str:
    """The key a page keeps the draft of ``request`` under, in this game (its seed).
    An open day's asks share one (``open_day``): each round asks anew, and what
    the person is typing stays in the box from one round to the next (OD-7)."""
    if open_day is not None:
        return f"{game}:{request.seat}:open-day-{open_day}"
    return f"{game}:{request.seat}:{request.id}"


# The chat's own words (OD-7), beside the page's table in sandbox.web.words.
CHAT_WORDS = {
    "en": {
        "title": "Day {day}: the talk so far",
        "empty": "Nobody has posted yet today.",
        "left": "You may post {n} more message(s) today.",
        "accuses": "accuses",
        "vouches": "vouches for",
        "you": "You",
        "queued": "Between rounds: your message goes out as the next round opens.",
    },
    "zh": {
        "title": "第{day}天：目前的讨论",
        "empty": "今天还没有人发言。",
        "left": "今天你还可以发 {n} 条消息。",
        "accuses": "指认",
        "vouches": "担保",
        "you": "你",
        "queued": "两轮之间：你的消息将在下一轮开始时发出。",
    },
}


@dataclass(frozen=True)
class ChatLine:
    seq: int
    who: str
    text: str
    claims: str  # "accuses Seat 3 · vouches for Seat 5", or ""
    mine: bool


@dataclass(frozen=True)
class Chat:
    """An open day as a chat (OD-7): its messages in order, who said what, and
    the messages the seat may still post today."""

    day: int
    lines: tuple[ChatLine, ...]
    left: int
    words: Mapping[str, str]


def open_chat(view: SeatView, seat: int, language: str) -> Chat | None:
    """The open day under way as ``seat`` saw it (None: no open day in its view).
    Built from the public items alone: the day's opening (its budget), the
    messages after it and each closed round's accepted seats."""
    facts = open_day.ask_facts(view, seat)
    if facts is None:
        return None
    words = CHAT_WORDS.get(language, CHAT_WORDS["en"])
    t = ui(language)
    lines: list[ChatLine] = []
    for item in view.history[facts.start + 1 :]:
        if item.speaker is not None and item.speech is not None and item.public:
            mine = item.speaker == seat
            who = words["you"] if mine else value_words(item.speaker, t)
            lines.append(ChatLine(item.seq, who, item.speech, _claims(item.facts, words, t), mine))
    return Chat(facts.day, tuple(lines), facts.left, words)


def _claims(facts: Mapping[str, Any], words: Mapping[str, str], t: Mapping[str, str]) -> str:
    said = []
    for key, verb in (("accuse", "accuses"), ("vouch", "vouches")):
        seats = facts.get(key) or ()
        if seats:
            said.append(f"{words[verb]} {value_words(list(seats), t)}")
    return " · ".join(said)


def decision_notes(
    request: DecisionRequest, language: str, view: SeatView | None
) -> list[tuple[str, str]]:
    """What the seat's variant shows beside this question, from the seat's own
    card only (``VariantWords.notes``: e.g. its weapon, shield and strikes before
    a duel); none without a view or a note for the decision."""
    if view is None:
        return []
    words = variant_words(view.variant)
    note = words.notes.get(request.decision) if words is not None else None
    return note(view.private, lang(language, view.variant)) if note is not None else []
