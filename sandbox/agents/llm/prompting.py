"""Prompt rendering for LLM seats, from jinja2 templates under ``prompts/``.

Contract used by the LLM client: ``render_prompt`` turns a seat's view and the
open request into two chat messages, laid out for prompt caches (providers'
and llama.cpp's longest-prefix cache): each prompt of a seat starts, byte for
byte, with the system text and the record of its previous prompt.

1. ``system``: first the part identical for every seat of a game (primer,
   rules text, how to read the record), then the seat's role card and fixed
   private facts. It is identical for every decision of one seat in one game;
   ``prefix_chars`` is its length.
2. ``user``: the record of what the seat has seen, in event order and only
   ever appended to between its decisions (``cache_chars``: where it ends),
   then a short volatile tail: the situation "now" (day, living seats, own
   status), the question (instruction, rule id, legal options) and the answer
   format. The full style's "now" leaves out the tables the record already
   states line by line (Four Factions' claims, accusations and protections,
   Killer's ballots): re-rendered at every decision, they were most of the
   tail; the compact style keeps them, as its record is a window.

Over a context budget the oldest items are condensed to the referee's own
announcements (``fit_record``): the summary comes first and its note after
it, so a condensation that grows keeps the lines before it, and a seat keeps
its condensation while it fits (``RecordMemo.condensed``).

Two styles (``[llm] prompt_style``): ``full`` (default, for real models) gives
the whole rules text; ``compact`` (for small local models) gives a short
primer, the role card, only the most recent ``history_items`` history items
(saying how many were omitted) and a terse question. Compact templates live
under ``compact/`` next to the full ones and fall back to them.

Safety (why the history is built here and not in templates): players' words
reach the prompt only as JSON-encoded strings on one line after a fixed
"Seat N said:" prefix, and every character that could end a line or forge the
referee's marker is escaped inside that encoding. Referee announcements are the
only lines that start with the marker. Player text is always a template
variable, never a template. Everything is rendered from the ``SeatView``, the
``DecisionRequest`` and the public rules text, never from the game state.

Where the templates live: their source is the repository's top-level
``prompts/`` folder, which is installed as the resource package
``sandbox.prompts`` (see pyproject.toml). They are read through
``importlib.resources`` only, never by a path relative to this file, so an
editable install and a wheel install behave the same from any directory.

Template lookup, first match wins (``<lang>`` falls back to ``en``; a variant
without a template falls back to ``_generic``)::

    <variant>/<lang>/<name>  <variant>/en/<name>
    _generic/<lang>/<name>   _generic/en/<name>

``<variant>/`` is the variant's folder here or, for a variant from another
package, the folder its ``Variant.prompt_templates()`` gives.

Decision templates are ``decisions/<decision>.j2``; a decision without one
uses ``decisions/_default.j2``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Literal

from jinja2 import (
    BaseLoader,
    Environment,
    StrictUndefined,
    Template,
    TemplateError,
    TemplateNotFound,
)
from jinja2.loaders import split_template_path

from sandbox.agents.llm.beliefs import probe_for
from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Text
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.games.registry import find_variant

# The installed templates (tests may point this at a copy: any Traversable,
# e.g. a pathlib.Path, will do).
PROMPTS_DIR: Traversable = resources.files("sandbox.prompts")
GENERIC = "_generic"
LANGUAGES = ("en", "zh")
FALLBACK_LANGUAGE = "en"
PromptStyle = Literal["full", "compact"]
COMPACT = "compact"

# The referee's marker. Its brackets are escaped in every JSON-encoded value
# (see safe_json), so no speech or quoted value can ever contain it.
MARK_OPEN, MARK_CLOSE = "⟦", "⟧"
REFEREE_MARK = {"en": "⟦REFEREE⟧", "zh": "⟦裁判⟧"}

# Characters escaped inside JSON strings on top of json.dumps' own escapes:
# line breaks that json.dumps(ensure_ascii=False) leaves raw (NEL, LS, PS, C1
# controls), invisible/bidi controls that could disguise text, and the marker.
_ESCAPED = re.compile("[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff⟦⟧]")


@dataclass(frozen=True)
class RenderedPrompt:
    messages: list[dict[str, str]]
    prefix_chars: int  # the system message: fixed for a seat's whole game
    # Where the stable part of the user message ends (after the record, before
    # "now" and the question): the second cache breakpoint.
    cache_chars: int = 0
    summarized: int = 0  # history items condensed to fit the context budget
    tokens: int = 0  # estimate_tokens of the whole prompt


# Put after the record by the user templates, cut out here: where the part of
# the user message that only grows between a seat's decisions ends.
CACHE_MARK = "\x00cache\x00"
# The condensed part of the record ends on a multiple of this many items, so it
# changes seldom and the prompt stays a prefix-cache hit in between.
SUMMARY_STEP = 16
# A seat's new condensation fits this share of its budget, so its record can
# grow over several decisions before the condensation (and the prefix) changes.
CONDENSE_SLACK = 0.8


def estimate_tokens(text: str) -> int:
    """A conservative token count without a tokenizer: four ASCII characters
    a token, every other character a token (CJK text is about one a character)."""
    wide = (len(text.encode("utf-8")) - len(text)) // 2
    return (len(text) - wide) // 4 + wide + 1


def safe_json(value: Any) -> str:
    """JSON on one line, readable Unicode, with line breaks and the marker escaped.

    Used as the ``json`` filter (instead of ``|tojson``, which HTML-escapes).
    """
    text = json.dumps(_plain(value), ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return [_plain(v) for v in items]
    return value


class ResourceLoader(BaseLoader):
    """Templates read from a package's resources (``importlib.resources``), so
    they load wherever the package is installed, a zip archive included."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        resource = _find(self.root, template)
        if resource is None:
            raise TemplateNotFound(template)
        # Read once per process (auto_reload is off), so never out of date.
        return resource.read_text(encoding="utf-8"), str(resource), lambda: True


def _find(root: Traversable, name: str) -> Traversable | None:
    """The resource ``name`` ("a/b/c.j2") under ``root``, if it is a file, else
    in the own templates of the variant its first part names (a variant from
    another package: ``Variant.prompt_templates``). split_template_path refuses
    ".." and other ways out of the root."""
    parts = split_template_path(name)
    resource = root
    for part in parts:
        resource = resource.joinpath(part)
    if resource.is_file():
        return resource
    variant = find_variant(parts[0]) if len(parts) > 1 else None
    own = variant.prompt_templates() if variant is not None else None
    if own is None:
        return None
    for part in parts[1:]:
        own = own.joinpath(part)
    return own if own.is_file() else None


# One environment per templates root (keyed by its text: a Traversable need
# not be hashable).
_ENVIRONMENTS: dict[str, Environment] = {}


def environment() -> Environment:
    """The shared environment for the current ``PROMPTS_DIR`` (tests may point
    it at a copy)."""
    env = _ENVIRONMENTS.get(str(PROMPTS_DIR))
    if env is None:
        env = _ENVIRONMENTS[str(PROMPTS_DIR)] = _new_environment(PROMPTS_DIR)
    return env


def _new_environment(root: Traversable) -> Environment:
    env = Environment(
        loader=ResourceLoader(root),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates are read once per process (no stat per render)
    )
    env.filters["json"] = safe_json
    env.filters["oneline"] = one_line
    env.filters["omit"] = omit
    env.filters["skip_false"] = skip_false
    return env


def skip_false(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A copy without flags left at false: an option the seat did not use (e.g.
    KG-13 concede) says nothing when its answer is shown back to it."""
    return {k: v for k, v in mapping.items() if v is not False}


def omit(mapping: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """A copy without ``keys`` (e.g. a recorded answer without its speech, which
    the history already quotes)."""
    return {k: v for k, v in mapping.items() if k not in keys}


def one_line(text: Any) -> str:
    """Collapse whitespace (a referee line must stay one line)."""
    return " ".join(str(text).split())


def candidates(variant: str, language: str, name: str, style: str = "full") -> list[str]:
    """Template names to try, most specific first. A compact style tries
    ``compact/<name>`` before the full template, per variant and language."""
    langs = [language] if language == FALLBACK_LANGUAGE else [language, FALLBACK_LANGUAGE]
    styles = [f"{COMPACT}/{name}", name] if style == COMPACT else [name]
    return [f"{v}/{lang}/{n}" for v in (variant, GENERIC) for lang in langs for n in styles]


def decision_candidates(
    variant: str, language: str, decision: str, style: str = "full"
) -> list[str]:
    """A decision's own template (zh, then en), else the generic default."""
    own = [
        n for n in candidates(variant, language, f"decisions/{decision}.j2", style)
        if not n.startswith(GENERIC)
    ]
    return own + candidates(variant, language, "decisions/_default.j2", style)


# Template lookups already made: a failed lookup is a file-system search and
# an exception each time, and every decision asks for the same few names.
_RESOLVED: dict[tuple[str, tuple[str, ...]], str] = {}


def resolve(names: Sequence[str]) -> str:
    """The first of ``names`` that exists under ``PROMPTS_DIR``."""
    key = (str(PROMPTS_DIR), tuple(names))
    found = _RESOLVED.get(key)
    if found is None:
        found = _RESOLVED[key] = _first_existing(PROMPTS_DIR, key[1])
    return found


def _first_existing(root: Traversable, names: Sequence[str]) -> str:
    for name in names:
        if _find(root, name) is not None:
            return name
    raise TemplateNotFound(names[0] if names else "(none)")


def precompile(variant: str, language: str) -> None:
    """Compile every template a seat of ``variant`` may use, once per process
    (at seat setup, so no decision pays for it)."""
    env = environment()
    langs = {language, FALLBACK_LANGUAGE}
    for folder in (variant, GENERIC):
        for lang in langs:
            for name in _template_names(PROMPTS_DIR / folder / lang, f"{folder}/{lang}"):
                env.get_template(name)


def _template_names(root: Traversable, prefix: str) -> list[str]:
    """Every ``*.j2`` below ``root`` (a packaged folder), as loader names."""
    if not root.is_dir():
        return []
    names: list[str] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            names += _template_names(entry, f"{prefix}/{entry.name}")
        elif entry.name.endswith(".j2"):
            names.append(f"{prefix}/{entry.name}")
    return names


def _template(variant: str, language: str, name: str, style: str = "full") -> Template:
    return environment().get_template(resolve(candidates(variant, language, name, style)))


# ---------------------------------------------------------------- history


def speech_line(item: HistoryItem, language: str, occasion: str = "") -> str:
    """One line: who spoke (and on which occasion), then the JSON-quoted words."""
    label = "Seat" if language != "zh" else "座位"
    said = "said" if language != "zh" else "说"
    what = _scrub(occasion) or item.kind
    return f"{label} {item.speaker} {said} ({what}): {safe_json(item.speech or '')}"


def _scrub(text: Any) -> str:
    """Template-made label text on one line, never containing the marker."""
    return one_line(text).replace(MARK_OPEN, "(").replace(MARK_CLOSE, ")")


def referee_line(text: str, language: str) -> str:
    """The marker, then the announcement flattened to one line."""
    return f"{REFEREE_MARK.get(language, REFEREE_MARK['en'])} {_scrub(text)}"


def history_lines(
    view: SeatView, language: str, first: int = 0, last: int | None = None,
    speeches: bool = True,
) -> list[str]:
    """The seat's history items ``first``..``last``, grouped under day/phase
    headers; ``speeches=False`` keeps only the referee's lines (a summary)."""
    macros: Any = _template(view.variant, language, "events.j2").module
    lines: list[str] = []
    current: tuple[int, str] | None = None
    for item in view.history[first:last]:
        if (item.day, item.phase) != current:
            current = (item.day, item.phase)
            lines.append(_scrub(macros.phase_header(item.day, item.phase)))
        item_text = _cached_item_lines(item, macros, view.variant, language)
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

    def lines(self, view: SeatView, language: str, first: int) -> list[str]:
        key = (view.variant, language, first)
        history = view.history
        count = len(self._items)
        if key != self._key or count > len(history) - first or not self._continues(history, first):
            self._key, self._items, self._lines, self._current = key, [], [], None
            count = 0
        macros: Any = _template(view.variant, language, "events.j2").module
        for item in history[first + count :]:
            if (item.day, item.phase) != self._current:
                self._current = (item.day, item.phase)
                self._lines.append(_scrub(macros.phase_header(item.day, item.phase)))
            self._lines.extend(_cached_item_lines(item, macros, view.variant, language))
            self._items.append(item)
        return list(self._lines)

    def _continues(self, history: Sequence[HistoryItem], first: int) -> bool:
        """The history still starts with the items already rendered."""
        if not self._items:
            return True
        last = len(self._items) - 1
        seen = history[first + last]
        return seen is self._items[last] or seen == self._items[last]


def summarized_record(view: SeatView, language: str, upto: int, keep: int | None) -> Record:
    """Items before ``upto`` condensed to the referee's announcements (who
    died when, votes, checks the seat was told: only lines the seat already
    saw, so nothing it may not know), keeping the last ``keep`` of them."""
    summary = history_lines(view, language, 0, upto, speeches=False)
    dropped = 0 if keep is None else max(0, len(summary) - keep)
    lines = summary[dropped:] + history_lines(view, language, upto)
    return Record(lines, upto, upto, dropped, len(summary) - dropped)


# Rendered lines per history item. A seat's history is re-rendered at every
# decision and the same event reaches every seat; running the jinja macros
# again cost ~8 ms per late-game decision. Keyed by everything but the facts,
# which are compared on a hit (seats may see different facts of one event).
_LINES_CACHE: dict[tuple[Any, ...], tuple[Mapping[str, Any], list[str]]] = {}
_LINES_CACHE_MAX = 50_000


def _cached_item_lines(item: HistoryItem, macros: Any, variant: str, language: str) -> list[str]:
    key = (str(PROMPTS_DIR), variant, language, item.seq, item.kind, item.day, item.phase,
           item.speaker, item.speech)
    hit = _LINES_CACHE.get(key)
    if hit is not None and (hit[0] is item.facts or hit[0] == item.facts):
        return hit[1]
    lines = item_lines(item, macros, language)
    if len(_LINES_CACHE) >= _LINES_CACHE_MAX:
        _LINES_CACHE.clear()
    _LINES_CACHE[key] = (item.facts, lines)
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


def item_lines(item: HistoryItem, macros: Any, language: str) -> list[str]:
    out: list[str] = []
    text = describe_fact(item, macros)
    if text:
        out.append(referee_line(text, language))
    if item.speech is not None:
        occasion = macros.speech_label(item.kind) if hasattr(macros, "speech_label") else ""
        out.append(speech_line(item, language, occasion))
    return out


# Facts that only repeat who is speaking: a speech needs no extra referee line.
_SPEAKER_KEYS = frozenset({"seat", "speaker", "day", "context"})
# Structured claims that a speech left empty (Killer: no claim, nobody accused).
_EMPTY_CLAIMS = {"claim": "none", "accuse": (), "vouch": ()}


def _news_beyond_speaker(facts: Mapping[str, Any]) -> bool:
    """Whether a speech's facts say more than who spoke (a claim, an accusation)."""
    return any(
        key not in _SPEAKER_KEYS and not ((key in _EMPTY_CLAIMS and not value) or value == "none")
        for key, value in facts.items()
    )


def describe_fact(item: HistoryItem, macros: Any) -> str:
    """The variant's wording of an announcement; a JSON listing when it has none
    (or when its template no longer matches the facts' fields). Empty when the
    item is a speech whose facts say nothing beyond its speaker."""
    try:
        text = one_line(macros.fact(item))
    except TemplateError:
        text = ""
    if text:
        return text
    if item.speech is not None and not _news_beyond_speaker(item.facts):
        return ""
    return f"{item.kind} {safe_json(dict(item.facts))}"


# ---------------------------------------------------------------- fields


def field_view(f: Field, text_cap: int | None = None, wording: str = "") -> dict[str, Any]:
    """A template-friendly description of one answer field (``text_cap``: the
    answer schema's own, tighter limit on free text, if any; ``wording``: the
    language's own description of the field, replacing the engine's English)."""
    description = wording or f.description
    if isinstance(f, Text):
        chars = f.max_chars if text_cap is None else min(f.max_chars, text_cap)
        return {"name": f.name, "kind": "text", "description": description,
                "max_chars": chars, "options": [], "nullable": False, "max_items": 0}
    if isinstance(f, MultiChoice):
        return {"name": f.name, "kind": "multi", "description": description,
                "options": list(f.options), "nullable": False, "max_items": f.max_items,
                "max_chars": 0}
    assert isinstance(f, Choice)
    return {"name": f.name, "kind": "choice", "description": description,
            "options": list(f.options), "nullable": f.nullable, "max_items": 0, "max_chars": 0}


# ---------------------------------------------------------------- render


def render_prompt(
    view: SeatView,
    request: DecisionRequest,
    *,
    language: str = "en",
    rules_text: str = "",
    belief_probe: bool = False,
    style: PromptStyle = "full",
    history_items: int | None = None,
    budget_tokens: int | None = None,
    memo: RecordMemo | None = None,
) -> RenderedPrompt:
    """The two chat messages for one decision (see the module docstring).

    ``budget_tokens``: the most the prompt may take (the model's window less
    the answer). Over it, the oldest history is replaced by the referee's
    summary (:func:`fit_record`): never by a model, never beyond the view.
    ``memo``: the seat's rendered record so far, extended instead of redone.
    """
    system = render_system(view, language=language, rules_text=rules_text, style=style)
    first = history_start(len(view.history), history_items)

    def render(record: Record) -> tuple[str, int]:
        text = render_user(view, request, record, language=language,
                           belief_probe=belief_probe, style=style)
        return cut_cache_mark(text)

    record = full_record(view, language, first, memo)
    user, cache_chars = render(record)
    if budget_tokens is not None and estimate_tokens(system + user) > budget_tokens:
        room = budget_tokens - estimate_tokens(system)
        record, (user, cache_chars) = fit_record(view, language, first, room, render, memo)
    elif memo is not None:
        memo.condensed = None  # the whole record fits again
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return RenderedPrompt(messages, len(system), cache_chars, record.summarized,
                          estimate_tokens(system + user))


def cut_cache_mark(text: str) -> tuple[str, int]:
    """The text without CACHE_MARK, and where the mark was."""
    head, _, tail = text.partition(CACHE_MARK)
    return head + tail, len(head)


def fit_record(
    view: SeatView, language: str, first: int, budget: int,
    render: Callable[[Record], tuple[str, int]], memo: RecordMemo | None = None,
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
    if memo is not None:
        chosen = _sticky_choice(view, language, choices, budget, render)
        if chosen is not None:
            memo.condensed = chosen
            record = summarized_record(view, language, *chosen)
            return record, render(record)
    low = _first_fit(view, language, choices, budget, render)
    record = summarized_record(view, language, *choices[low])
    return record, render(record)


def _sticky_choice(
    view: SeatView, language: str, choices: Sequence[tuple[int, int | None]], budget: int,
    render: Callable[[Record], tuple[str, int]],
) -> tuple[int, int | None] | None:
    """A condensation that later decisions can keep: a step boundary (the
    record after it only grows), fitting CONDENSE_SLACK of the budget if one
    does, else the budget; None when only condensing everything fits."""
    count = len(view.history)
    steps = [c for c in choices if c[1] is None and c[0] < count]
    if not steps:
        return None
    for room in (int(budget * CONDENSE_SLACK), budget):
        low = _first_fit(view, language, steps, room, render)
        text, _ = render(summarized_record(view, language, *steps[low]))
        if estimate_tokens(text) <= room:
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


def _first_fit(
    view: SeatView, language: str, choices: Sequence[tuple[int, int | None]], budget: int,
    render: Callable[[Record], tuple[str, int]],
) -> int:
    """The index of the first choice whose message fits ``budget`` (the last
    choice when none does): each choice is shorter than the one before."""
    low, high = 0, len(choices) - 1
    while low < high:  # binary search
        middle = (low + high) // 2
        text, _ = render(summarized_record(view, language, *choices[middle]))
        if estimate_tokens(text) <= budget:
            high = middle
        else:
            low = middle + 1
    return low


def render_system(
    view: SeatView, *, language: str = "en", rules_text: str = "", style: PromptStyle = "full"
) -> str:
    """The stable prefix: the text shared by every seat first (primer, rules,
    reading guide), then the seat and its fixed private facts; nothing that
    changes during the game. The compact style leaves out the full rules text."""
    from sandbox.agents.llm.schema import limits_for  # schema imports nothing from here

    names = functools.partial(candidates, view.variant, language, style=style)
    return _template(view.variant, language, "system.j2", style).render(
        reasoning_chars=limits_for(style).reasoning_chars,
        variant=view.variant,
        seat=view.seat,
        private=view.private,
        rules_text=rules_text if style != COMPACT else "",
        # The primer's rule summary only when the full rules text is absent:
        # the full text states every rule (with IDs), the summary only repeats it.
        summary=style == COMPACT or not rules_text,
        marker=REFEREE_MARK.get(language, REFEREE_MARK["en"]),
        primer=resolve(names("primer.j2")),
        role_card=resolve(names("role_card.j2")),
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
) -> str:
    """The user message: the record (``record``, by default the last
    ``history_items`` items), then now and the question. It still holds
    CACHE_MARK where the record ends (render_prompt cuts it out)."""
    from sandbox.agents.llm.schema import limits_for  # schema imports nothing from here

    if record is None:
        record = full_record(view, language, history_start(len(view.history), history_items))
    names = functools.partial(candidates, view.variant, language, style=style)
    text_cap = limits_for(style).text_chars
    fields = _fields(view.variant, language, request, text_cap)
    return _template(view.variant, language, "user.j2", style).render(
        variant=view.variant,
        seat=view.seat,
        private=view.private,
        public=view.public,
        summary=record.lines[: record.summary_lines],
        history=record.lines[record.summary_lines :],
        omitted=record.first - record.summarized,
        summarized=record.summarized,
        dropped=record.dropped,
        cache_mark=CACHE_MARK,
        request=request,
        fields=fields,
        reasoning_chars=limits_for(style).reasoning_chars,
        probe=probe_for(view) if belief_probe else None,
        state=resolve(names("state.j2")),
        decision=resolve(decision_candidates(view.variant, language, request.decision, style)),
        beliefs=resolve(names("beliefs.j2")),
    )


def _fields(
    variant: str, language: str, request: DecisionRequest, text_cap: int | None
) -> list[dict[str, Any]]:
    wording: Any = _template(variant, language, "fields.j2").module
    return [
        field_view(f, text_cap, _scrub(wording.describe(request.decision, f.name)))
        for f in request.fields
    ]


def render_repair(error_text: str, language: str = "en") -> str:
    """The follow-up message after a rejected answer. The referee's error is
    quoted (it may echo the model's own text), then the format is restated."""
    template = environment().get_template(resolve(candidates(GENERIC, language, "repair.j2")))
    return template.render(error=safe_json(error_text))
