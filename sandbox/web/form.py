"""The open question as a form: one control per field, each offering exactly
the legal values, in words ("Seat 3 (you)", "Seat 7 (partner)", "Nobody /
abstain"), with the label its confirmation uses ("Your vote: Seat 2")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from sandbox.agents.human.terminal import for_people
from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Text
from sandbox.core.variant import SeatView
from sandbox.web.pages import render
from sandbox.web.table import seat_marks
from sandbox.web.words import field_words, label, option_words, ui
from sandbox.words import lang, variant_words

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


def field_view(
    f: Field,
    language: str,
    marks: Mapping[int, str] | None = None,
    confirm: str = "",
) -> FieldView:
    t = ui(language)
    description = for_people(f.description)
    confirm = confirm or t["your_field"].format(what=field_words(f.name, language))
    if isinstance(f, Text):
        return FieldView(
            f.name, "text", label(f.name), description, limit=f.max_chars, confirm=confirm
        )
    values = f.options if isinstance(f, MultiChoice) else f.legal()
    options = tuple(OptionView(json.dumps(o), _marked(o, t, marks or {})) for o in values)
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
    request: DecisionRequest, language: str, view: SeatView | None = None, game: str = ""
) -> str:
    """The open question: one control per field, each offering exactly the legal
    values, the seat itself and its side marked in the options. ``game`` names
    the game (its seed) in the key the page keeps a draft under."""
    marks = seat_marks(view, language)
    choices = [f for f in request.fields if isinstance(f, Choice) and not f.optional]
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
        draft=draft_key(game, request),
        instruction=for_people(request.instruction),
        fields=[
            field_view(f, language, marks, decision if choices == [f] else "")
            for f in request.fields
        ],
    )


def draft_key(game: str, request: DecisionRequest) -> str:
    """The key a page keeps the draft of ``request`` under, in this game (its seed)."""
    return f"{game}:{request.seat}:{request.id}"


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
