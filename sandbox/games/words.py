"""The one renderer of events into words, per variant and language ("en", "zh").

Each variant declares its words once (``Variant.words()``: a
:class:`~sandbox.core.words.VariantWords` with a sentence per event kind, its
decision phrases and vocabulary); this module only dispatches to them through
the registry, and says what no variant has to: the core's events, and a
variant's events or decisions it has no words for (their fields, or its
``describe_event``). A decision's phrase is handed only the fields its variant
declares for that decision (``VariantInfo.decisions``), so it cannot read one
the decision lacks. Structured claims are always said. The input is an event's
JSON form (``kind`` + ``data``, as in a transcript line) or a seat view's
:class:`HistoryItem`, so the renderer is independent of engine internals and
serves the terminal stream, ``sandbox view``, the HTML viewer and the human seats.

API (stable):

* :func:`words_for` — one event (kind, data) → :class:`Words`;
* :func:`item_words` — one seat-view :class:`HistoryItem` → :class:`Words`
  (``seat`` = whose view: its own decisions read "You vote for seat 5");
* :func:`line_text` — :class:`Words` (+ optional :class:`Tag`) → one plain,
  sanitised line, e.g. ``#42 · day 1 · vote  Seat 3 votes for seat 5.``;
* :func:`tag_text`, :func:`phase_title`, :func:`role_words`, :func:`controller_of`;
* :func:`declared_fields` — the answer fields a variant declares for a decision;
* :func:`card_rows` — a seat's private card as fact rows plus the tables a
  variant declares for list facts; :func:`lang` — a :class:`Lang` speaking a
  variant's words (or every registered variant's).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sandbox.core.events import event_from_json
from sandbox.core.variant import HistoryItem
from sandbox.core.words import (
    BOOKKEEPING,
    CATEGORIES,
    DECISION,
    ENDING,
    LANGUAGES,
    REFEREE,
    SPEECH,
    TEXT_FIELDS,
    Answer,
    CardTable,
    Lang,
    Tag,
    VariantWords,
    Vocabulary,
    Words,
    lead,
    sanitise,
)
from sandbox.games.registry import find_variant, get_variant, variant_names

__all__ = [
    "BOOKKEEPING",
    "CATEGORIES",
    "DECISION",
    "ENDING",
    "LANGUAGES",
    "REFEREE",
    "SPEECH",
    "Lang",
    "Tag",
    "Words",
    "board_columns",
    "card_rows",
    "controller_of",
    "declared_fields",
    "item_words",
    "known_kinds",
    "lang",
    "line_text",
    "phase_title",
    "role_words",
    "sanitise",
    "tag_text",
    "variant_words",
    "words_for",
]

D = Mapping[str, Any]
CORE_KINDS = ("core.decision", "core.step", "core.game_ended")


def variant_words(variant: str) -> VariantWords | None:
    """The words ``variant`` declares (None: it has none, or is not registered)."""
    found = find_variant(variant)
    return found.words() if found is not None else None


def every_variants_words() -> list[VariantWords]:
    """The words of every registered variant, by name."""
    return [w for w in map(variant_words, variant_names()) if w is not None]


_ALL: dict[tuple[str, ...], Vocabulary] = {}


def _every_vocabulary() -> Vocabulary:
    """The vocabularies of every registered variant together (for words said
    without a variant: a header's role labels, a phase title)."""
    names = tuple(variant_names())
    found = _ALL.get(names)
    if found is None:
        found = _ALL[names] = Vocabulary().merged(*(w.vocabulary for w in every_variants_words()))
    return found


def lang(language: str, variant: str | None = None) -> Lang:
    """``language`` speaking ``variant``'s game words, or every registered
    variant's when no variant is given."""
    if variant is None:
        return Lang(language, _every_vocabulary())
    words = variant_words(variant)
    return Lang(language, words.vocabulary if words is not None else None)


def known_kinds(variant: str) -> tuple[str, ...]:
    """Every event kind that has its own sentence in ``variant`` (core kinds included)."""
    words = variant_words(variant)
    return (*CORE_KINDS, *(words.sentences if words is not None else ()))


def board_columns(variant: str) -> tuple[str, ...]:
    """The extra seat-board columns ``variant``'s events fill (e.g. ``"hp"``)."""
    words = variant_words(variant)
    return words.board_columns if words is not None else ()


def words_for(
    variant: str, kind: str, data: D, language: str = "en", *, you: int | None = None
) -> Words:
    """One event in words. ``you``: the seat whose page this is (its own decisions
    are said in the second person)."""
    words = variant_words(variant)
    L = Lang(language, words.vocabulary if words is not None else None)
    if kind == "core.decision":
        return _decision(variant, words, data, L, you)
    if kind == "core.step":
        step = data.get("step")
        return Words(
            kind, BOOKKEEPING, L.end(L.say(en=f"Step {step} resolved", zh=f"第{step}步结算完毕"))
        )
    if kind == "core.game_ended":
        return _ended(data, L)
    sentence = words.sentences.get(kind) if words is not None else None
    if sentence is None:
        return _generic(variant, kind, data, L)
    return sentence(data, L)


def item_words(
    variant: str, item: HistoryItem, seat: int | None = None, language: str = "en"
) -> Words:
    """A seat view's history item in words (the view keeps the speech apart from
    the facts; both are put back as the event's data, under the usual keys, and
    so is the item's day)."""
    data: dict[str, Any] = dict(item.facts)
    if item.speaker is not None:
        data.setdefault("seat", item.speaker)
    if item.speech is not None:
        data.setdefault("speech", item.speech)
        data.setdefault("text", item.speech)
    if item.kind == "core.decision" and seat is not None:
        data.setdefault("seat", seat)  # a seat only ever sees its own decisions
    if not item.kind.startswith("core."):
        data.setdefault("day", item.day)
    return words_for(variant, item.kind, data, language, you=seat)


def _decision(variant: str, words: VariantWords | None, d: D, L: Lang, you: int | None) -> Words:
    seat = d.get("seat")
    payload: D = d.get("payload") or {}
    if words is None:
        return _plain_decision(d, payload)
    mine = you is not None and seat == you
    subject = L.say(en="You", zh="你") if mine else L.seat(seat, capital=True)
    phrase = _phrase(variant, words, str(d.get("decision")), payload, L, mine)
    sentence = L.say(en=f"{subject} {phrase}", zh=f"{subject}{phrase}")
    if d.get("fallback"):
        reason = d.get("fallback_reason") or ""
        sentence += L.say(en=f" (fallback: {reason})", zh=f"（默认处理：{reason}）")
    sentence = L.end(sentence)
    text = next((str(payload[k]) for k in words.text_fields if payload.get(k)), None)
    note = str(d["note"]) if d.get("note") else None
    return Words("core.decision", DECISION, sentence, seat, text, (), note)


def _plain_decision(d: D, payload: D) -> Words:
    """A decision of a variant with no words table: ``seat 2 · pick: pick=1``."""
    answer = ", ".join(f"{k}={_plain(v)}" for k, v in payload.items())
    sentence = f"seat {d.get('seat')} · {d.get('decision')}: {answer}"
    if d.get("fallback"):
        sentence += f" (fallback: {d.get('fallback_reason')})"
    note = str(d["note"]) if d.get("note") else None
    return Words("core.decision", DECISION, sentence, d.get("seat"), None, (), note)


def _plain(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    return str(value)


def _phrase(
    variant: str, words: VariantWords, decision: str, payload: D, L: Lang, you: bool
) -> str:
    """What the seat answered: the decision's own phrase, given only the fields
    the variant declares for it; else the catch-all phrase; else its fields."""
    own = words.decisions.get(decision)
    if own is not None:
        return own(Answer(decision, declared_fields(variant, decision), payload), L, you)
    if words.decision_phrase is not None:
        phrase = words.decision_phrase(decision, payload, L, you)
        if phrase is not None:
            return phrase
    return _generic_answer(decision, payload, L, you, words.text_fields)


def declared_fields(variant: str, decision: str) -> tuple[str, ...]:
    """The answer fields ``variant`` declares for ``decision`` (empty: none, or
    the variant is not registered)."""
    found = find_variant(variant)
    return tuple(found.info.decisions.get(decision, ())) if found is not None else ()


def _generic_answer(
    decision: str, payload: D, L: Lang, you: bool, text_fields: tuple[str, ...] = TEXT_FIELDS
) -> str:
    values = [(k, v) for k, v in payload.items() if k not in text_fields]
    shown = L.items(f"{L.label(k)} {L.value(v)}" for k, v in values)
    what = L.term(decision)
    return L.say(
        en=f"answer{'' if you else 's'} {what}" + (f": {shown}" if shown else ""),
        zh=f"回答{what}" + (f"：{shown}" if shown else ""),
    )


def _ended(d: D, L: Lang) -> Words:
    if not L.zh:
        return Words("core.game_ended", ENDING, f"The game ends: {d.get('summary')}")
    results: D = d.get("results") or {}
    groups = []
    for result in ("win", "lose", "draw"):
        seats = sorted((int(s) for s, r in results.items() if r == result))
        if seats:
            groups.append(f"{L.term(result)}：{L.seats(seats)}")
    reason = L.term(d.get("reason"))
    return Words("core.game_ended", ENDING, f"游戏结束（{reason}）。" + "；".join(groups) + "。")


def _generic(variant: str, kind: str, d: D, L: Lang) -> Words:
    """A kind with no sentence here (a variant added without a words table): the
    variant's own one-line description, or its fields when it is not registered."""
    seat = d.get("seat") if isinstance(d.get("seat"), int) else None
    speech = next((str(d[k]) for k in ("speech", "text") if isinstance(d.get(k), str)), None)
    if speech is not None:
        lead = L.say(en=f"{L.seat(seat, capital=True)} says", zh=f"{L.seat(seat)}说")
        return Words(kind, SPEECH, lead, seat, speech)
    try:
        sentence = get_variant(variant).describe_event(event_from_json({"kind": kind, "data": d}))
    except (KeyError, ValueError, TypeError):
        sentence = f"{kind}: " + ", ".join(f"{k}={v}" for k, v in d.items())
    return Words(kind, REFEREE, sentence, seat)


# ------------------------------------------------------------------ lines


def phase_title(
    day: int | None, phase: str | None, language: str = "en", variant: str | None = None
) -> str:
    """``Day 2 · speeches`` / ``第2天 · 发言``, ``Night 2`` / ``第2夜``; ``Setup`` first."""
    L = lang(language, variant)
    name = L.term(phase or "setup")
    if not day:
        return name if L.zh else name.capitalize()
    if phase == "night":  # a variant's night N may come before or after its day N
        return L.say(en=f"Night {day}", zh=f"第{day}夜")
    if phase == "day":
        return L.say(en=f"Day {day}", zh=f"第{day}天")
    return L.say(en=f"Day {day} · {name}", zh=f"第{day}天 · {name}")


def tag_text(tag: Tag, language: str = "en") -> str:
    """``#42 · day 1, vote · <role words>, gpt-4o`` — the parts that are known."""
    L = Lang(language)
    parts = []
    if tag.seq is not None:
        parts.append(f"#{tag.seq}")
    if tag.day is not None or tag.phase is not None:
        parts.append(phase_title(tag.day, tag.phase, language).replace(" · ", ", "))
    who = [w for w in (tag.role and role_words(tag.role, language), tag.controller) if w]
    if who:
        parts.append(L.items(who) if L.zh else ", ".join(who))
    return " · ".join(parts)


def line_text(words: Words, tag: Tag | None = None, language: str = "en") -> str:
    """One plain line: the tag, the sentence and the quoted speech. Player text is
    sanitised (no control characters, no line breaks) and always inside quotes."""
    L = Lang(language)
    body = words.sentence
    if words.speech is not None:
        body = lead(body)
        quoted = sanitise(words.speech)
        body += L.say(en=f': "{quoted}"', zh=f"：“{quoted}”")
    if words.note:
        body += L.say(
            en=f' [note: "{sanitise(words.note)}"]', zh=f"［私下理由：“{sanitise(words.note)}”］"
        )
    head = tag_text(tag, language) if tag is not None else ""
    return f"{head}  {body}" if head else body


def role_words(role: str, language: str = "en", variant: str | None = None) -> str:
    """A role label from the header in words, each ``/``-part a game word
    (``group/rank`` reads "group rank")."""
    L = lang(language, variant)
    parts = [L.term(p) for p in str(role).split("/")]
    return "".join(parts) if L.zh else " ".join(parts)


def controller_of(agent: Mapping[str, Any] | None) -> str:
    """Who plays a seat, from the header's agent entry: the model name for a
    model seat, else the kind (bot, human, random, scripted)."""
    if not agent:
        return "?"
    kind = str(agent.get("kind") or "?")
    if kind == "llm":
        return str(agent.get("model") or "llm")
    if kind == "baseline":
        return "baseline bot"
    return kind


def card_rows(
    private: Mapping[str, Any], language: str = "en", variant: str | None = None
) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """A seat's card: (label, words) rows, and a list fact its variant shows as a
    table (``VariantWords.card_tables``, e.g. a seat's duels) as that table,
    header row first, instead of one long paragraph; no such fact, no table.
    Without ``variant``, the words and tables of every registered variant."""
    L = lang(language, variant)
    if variant is None:
        tables: dict[str, CardTable] = {}
        for words in every_variants_words():
            tables.update((k, t) for k, t in words.card_tables.items() if k not in tables)
    else:
        own = variant_words(variant)
        tables = dict(own.card_tables) if own is not None else {}
    shown = next((key for key in tables if private.get(key)), None)
    rows = L.facts({k: v for k, v in private.items() if k not in tables})
    if shown is None:
        return rows, []
    return rows, tables[shown](private[shown], L)
