"""HTML for the web pages: jinja2 templates with autoescaping, so everything a
player or a model wrote reaches the page as text, never as markup.

Fragments (the view, the question, the end screen) are rendered here and
pushed to the page, which swaps them in; the page's script builds no HTML from
game data itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from sandbox.agents.human import for_people
from sandbox.agents.web.words import TEXT_FIELDS, label, option_words, ui, value_words
from sandbox.core.events import DecisionMade
from sandbox.core.requests import DecisionRequest, Field, MultiChoice, Text
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.render.readable import fact_lines

# Up to this many options a choice is a row of radio buttons, beyond it a select.
RADIO_LIMIT = 20  # 16 Killer players and "nobody" stay radios
OWN_DECISION = DecisionMade.kind

Describe = Callable[[HistoryItem], str]

_ENV = Environment(
    loader=PackageLoader("sandbox.agents.web_assets", "templates"),
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
    """One line of the history as the page shows it."""

    seq: int
    style: str  # "speech", "referee" or "mine"
    text: str
    speaker: int | None = None
    new: bool = False


@dataclass
class Section:
    heading: str
    entries: list[Entry] = field(default_factory=list)


def history_sections(
    items: Sequence[HistoryItem], describe: Describe | None, language: str, last_seen: int = -1
) -> list[Section]:
    """The seat's history grouped by day and phase, in the referee's own sentences."""
    t = ui(language)
    sections: list[Section] = []
    where: tuple[int, str] | None = None
    for item in items:
        entry = history_entry(item, describe, language, item.seq > last_seen)
        if entry is None:
            continue
        if (item.day, item.phase) != where:
            where = (item.day, item.phase)
            heading = (
                t["day_phase"].format(day=item.day, phase=label(item.phase))
                if item.day
                else t["setup"]
            )
            sections.append(Section(heading))
        sections[-1].entries.append(entry)
    return sections


def history_entry(
    item: HistoryItem, describe: Describe | None, language: str, new: bool = False
) -> Entry | None:
    t = ui(language)
    if item.speech is not None:
        words = item.speech if item.speech.strip() else t["said_nothing"]
        return Entry(item.seq, "speech", words, item.speaker, new)
    if item.kind == OWN_DECISION:
        text = own_answer(item, language)
        return None if text is None else Entry(item.seq, "mine", text, None, new)
    if describe is not None:
        text = describe(item)
    else:
        text = "; ".join(f"{key}: {words}" for key, words in fact_lines(item.facts))
    return Entry(item.seq, "referee", text, None, new)


def own_answer(item: HistoryItem, language: str) -> str | None:
    """The seat's own recorded answer: "Your vote: Seat 5". A speech alone is
    left out (it is shown quoted under the speaker already)."""
    t = ui(language)
    payload: Mapping[str, Any] = item.facts.get("payload") or {}
    shown = {k: v for k, v in payload.items() if k not in TEXT_FIELDS}
    if not shown:
        return None
    if len(shown) == 1:
        values = value_words(next(iter(shown.values())), t)
    else:
        values = "; ".join(f"{label(k)} {value_words(v, t)}" for k, v in shown.items())
    text = t["your_answer"].format(decision=label(item.facts.get("decision", "")), values=values)
    reason = item.facts.get("fallback_reason")
    if item.facts.get("fallback"):
        text += " " + t["fallback"].format(reason=reason or "—")
    return text


# ---------------------------------------------------------------- fragments


def render_view(
    view: SeatView, describe: Describe | None, language: str, last_seen: int = -1
) -> str:
    """The seat's card, what it knows now and its history (new items marked)."""
    return render(
        "_view.html",
        t=ui(language),
        card=fact_lines(view.private),
        now=fact_lines(view.public),
        sections=history_sections(view.history, describe, language, last_seen),
    )


def render_history(items: Sequence[HistoryItem], describe: Describe | None, language: str) -> str:
    return render(
        "_history.html",
        t=ui(language),
        sections=history_sections(items, describe, language),
    )


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


def field_view(f: Field, language: str) -> FieldView:
    t = ui(language)
    description = for_people(f.description)
    if isinstance(f, Text):
        return FieldView(f.name, "text", label(f.name), description, limit=f.max_chars)
    values = f.options if isinstance(f, MultiChoice) else f.legal()
    options = tuple(OptionView(json.dumps(o), option_words(o, t)) for o in values)
    if isinstance(f, MultiChoice):
        return FieldView(f.name, "multi", label(f.name), description, options, f.max_items)
    kind = "choice" if len(options) <= RADIO_LIMIT else "select"
    return FieldView(f.name, kind, label(f.name), description, options)


def render_form(request: DecisionRequest, language: str) -> str:
    """The open question: one control per field, each offering exactly the legal values."""
    return render(
        "_form.html",
        t=ui(language),
        request=request,
        instruction=for_people(request.instruction),
        fields=[field_view(f, language) for f in request.fields],
    )


@dataclass(frozen=True)
class SeatResult:
    seat: int
    role: str
    result: str
    mine: bool


def render_end(
    summary: str,
    results: Sequence[SeatResult],
    history_html: str,
    language: str,
) -> str:
    """The end screen: the outcome, every seat's role and result, the whole game."""
    return render(
        "_end.html", t=ui(language), summary=summary,
        results=results,
        # rendered by _history.html above, with autoescaping: already safe
        history_html=Markup(history_html),
    )


def render_entries(entries: Sequence[Entry], language: str) -> str:
    """A flat list of history lines (the referee's view for spectators)."""
    return render("_history.html", t=ui(language), sections=[Section("", list(entries))])
