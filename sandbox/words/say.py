"""The one renderer of events into words, per variant and language ("en", "zh").

Each variant declares its words once (``Variant.words()``: a
:class:`~sandbox.core.words.VariantWords` with a sentence per event kind, its
decision phrases and vocabulary); this module only dispatches to them, and
says what no variant has to: the core's events, and a
variant's events or decisions it has no words for (their fields, or its
``describe_event``). A decision's phrase is handed only the fields its variant
declares for that decision (``VariantInfo.decisions``), so it cannot read one
the decision lacks. Structured claims are always said. The input is an event's
JSON form (``kind`` + ``data``, as in a transcript line) or a seat view's
:class:`HistoryItem`, so the renderer is independent of engine internals and
serves the terminal stream, ``sandbox view``, the HTML viewer, the human seats
and the model seats' record (the prompts' event lines).

Every function takes the :class:`~sandbox.core.variant.Variant` object, never a
name to look up: this package imports only the core, so the seats may use it
without the playing layer. A caller holding only a name asks
``sandbox.games.registry.find_variant`` first. Where words are said without one
variant (a header's role labels across games), a sequence of variants may be
given: their vocabularies together (:data:`Speakers`).

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

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sandbox.core.events import event_from_json
from sandbox.core.variant import HistoryItem, Variant
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
    D,
    Lang,
    Tag,
    VariantWords,
    Vocabulary,
    Words,
    as_you,
    lead,
    sanitise,
)
from sandbox.words.discussion import SENTENCES as OPEN_DAY
from sandbox.words.talk import SENTENCES as TALK

# The events every variant shares words for: an open day's, table talk's.
DISCUSSION = {**OPEN_DAY, **TALK}

__all__ = [
    "BOOKKEEPING",
    "CATEGORIES",
    "DECISION",
    "ENDING",
    "LANGUAGES",
    "REFEREE",
    "SPEECH",
    "Lang",
    "Speakers",
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
    "seat_words",
    "tag_text",
    "variant_words",
    "words_for",
    "words_of",
]

AnyVariant = Variant[Any, Any]
Speakers = AnyVariant | Sequence[AnyVariant] | None
"""Whose game words to speak: one variant's, several variants' together (the
first listed wins a word they share), or only the shared words (None)."""
CORE_KINDS = ("core.decision", "core.step", "core.game_ended")


def variant_words(variant: AnyVariant | None) -> VariantWords | None:
    """The words ``variant`` declares (None: it has none, or there is no variant)."""
    return variant.words() if variant is not None else None


def words_of(speakers: Speakers) -> list[VariantWords]:
    """The words of each of ``speakers``, in their order."""
    if speakers is None:
        return []
    found = [speakers] if isinstance(speakers, Variant) else speakers
    return [w for w in map(variant_words, found) if w is not None]


_MERGED: dict[tuple[str, ...], Vocabulary] = {}


def _vocabulary(speakers: Speakers) -> Vocabulary | None:
    """The vocabulary of ``speakers`` (several: merged once, by their names)."""
    if speakers is None or isinstance(speakers, Variant):
        words = variant_words(speakers)
        return words.vocabulary if words is not None else None
    names = tuple(v.name for v in speakers)
    found = _MERGED.get(names)
    if found is None:
        found = _MERGED[names] = Vocabulary().merged(*(w.vocabulary for w in words_of(speakers)))
    return found


def lang(language: str, variant: Speakers = None) -> Lang:
    """``language`` speaking ``variant``'s game words (several variants': all of
    theirs; None: the shared words only)."""
    return Lang(language, _vocabulary(variant))


def known_kinds(variant: AnyVariant) -> tuple[str, ...]:
    """Every event kind that has its own sentence in ``variant`` (core kinds and
    an open day's ``discussion.*`` kinds included)."""
    words = variant_words(variant)
    return (*CORE_KINDS, *DISCUSSION, *(words.sentences if words is not None else ()))


def board_columns(variant: AnyVariant) -> tuple[str, ...]:
    """The extra seat-board columns ``variant``'s events fill (e.g. ``"hp"``)."""
    words = variant_words(variant)
    return words.board_columns if words is not None else ()


def words_for(
    variant: AnyVariant | None, kind: str, data: D, language: str = "en", *, you: int | None = None
) -> Words:
    """One event in words. ``you``: the seat whose page this is (its own decisions
    are said in the second person). Without a variant (one no longer
    installed), its fields."""
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
    sentence = DISCUSSION.get(kind)  # an open day's, table talk's: the same in every variant
    if sentence is None and words is not None:
        sentence = words.sentences.get(kind)
    if sentence is None:
        return _generic(variant, kind, data, L)
    return sentence(data, L)


def item_words(
    variant: AnyVariant | None, item: HistoryItem, seat: int | None = None, language: str = "en"
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


def seat_words(
    variant: AnyVariant | None, item: HistoryItem, seat: int, language: str = "en"
) -> Words:
    """A seat's history item as told to that seat: :func:`item_words`, and a
    line about the seat itself in the second person ("Seat 3 is dealt the
    police card" → "You are dealt the police card"). What its page, its
    terminal and its prompt say."""
    words = item_words(variant, item, seat, language)
    if words.speaker != seat or words.category == DECISION:
        return words  # its own decisions are already said to it
    return replace(words, sentence=as_you(words.sentence, seat, lang(language, variant)))


def _decision(
    variant: AnyVariant | None, words: VariantWords | None, d: D, L: Lang, you: int | None
) -> Words:
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
    variant: AnyVariant | None, words: VariantWords, decision: str, payload: D, L: Lang, you: bool
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


def declared_fields(variant: AnyVariant | None, decision: str) -> tuple[str, ...]:
    """The answer fields ``variant`` declares for ``decision`` (empty: none, or
    no variant)."""
    return tuple(variant.info.decisions.get(decision, ())) if variant is not None else ()


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


def _generic(variant: AnyVariant | None, kind: str, d: D, L: Lang) -> Words:
    """A kind with no sentence here (a variant added without a words table): the
    variant's own one-line description, or its fields without a variant."""
    seat = d.get("seat") if isinstance(d.get("seat"), int) else None
    speech = next((str(d[k]) for k in ("speech", "text") if isinstance(d.get(k), str)), None)
    if speech is not None:
        lead = L.say(en=f"{L.seat(seat, capital=True)} says", zh=f"{L.seat(seat)}说")
        return Words(kind, SPEECH, lead, seat, speech)
    sentence = f"{kind}: " + ", ".join(f"{k}={v}" for k, v in d.items())
    if variant is not None:
        # facts the variant's events no longer match keep their fields
        with contextlib.suppress(KeyError, ValueError, TypeError):
            sentence = variant.describe_event(event_from_json({"kind": kind, "data": d}))
    return Words(kind, REFEREE, sentence, seat)


# ------------------------------------------------------------------ lines


def phase_title(
    day: int | None, phase: str | None, language: str = "en", variant: Speakers = None
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


def tag_text(tag: Tag, language: str = "en", variant: Speakers = None) -> str:
    """``#42 · day 1, vote · <role words>, gpt-4o`` — the parts that are known
    (phase and role in ``variant``'s words)."""
    L = Lang(language)
    parts = []
    if tag.seq is not None:
        parts.append(f"#{tag.seq}")
    if tag.day is not None or tag.phase is not None:
        parts.append(phase_title(tag.day, tag.phase, language, variant).replace(" · ", ", "))
    who = [w for w in (tag.role and role_words(tag.role, language, variant), tag.controller) if w]
    if who:
        parts.append(L.items(who) if L.zh else ", ".join(who))
    return " · ".join(parts)


def line_text(
    words: Words, tag: Tag | None = None, language: str = "en", variant: Speakers = None
) -> str:
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
    head = tag_text(tag, language, variant) if tag is not None else ""
    return f"{head}  {body}" if head else body


def role_words(role: str, language: str = "en", variant: Speakers = None) -> str:
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
    private: Mapping[str, Any], language: str = "en", variant: Speakers = None
) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """A seat's card: (label, words) rows, and a list fact its variant shows as a
    table (``VariantWords.card_tables``, e.g. a seat's duels) as that table,
    header row first, instead of one long paragraph; no such fact, no table.
    Several variants: the words and tables of all of them."""
    L = lang(language, variant)
    tables: dict[str, CardTable] = {}
    for words in words_of(variant):
        tables.update((k, t) for k, t in words.card_tables.items() if k not in tables)
    shown = next((key for key in tables if private.get(key)), None)
    rows = L.facts({k: v for k, v in private.items() if k not in tables})
    if shown is None:
        return rows, []
    return rows, tables[shown](private[shown], L)
