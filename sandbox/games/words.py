"""The one renderer of events into words, per variant and language ("en", "zh").

Every event kind of every variant has its sentence (``sentences_*`` modules);
structured claims (Four Factions proofs, accusations, protections; Killer
``claim``/``accuse``/``vouch``) are always said. The input is an event's JSON
form (``kind`` + ``data``, as in a transcript line) or a seat view's
:class:`HistoryItem`, so the renderer is independent of engine internals and
serves the terminal stream, ``sandbox view``, the HTML viewer and the human seats.

API (stable):

* :func:`words_for` — one event (kind, data) → :class:`Words`;
* :func:`item_words` — one seat-view :class:`HistoryItem` → :class:`Words`
  (``seat`` = whose view: its own decisions read "You vote for seat 5");
* :func:`line_text` — :class:`Words` (+ optional :class:`Tag`) → one plain,
  sanitised line, e.g. ``#42 · day 1 · proofs  Seat 3 claims to be wolves …: "…"``;
* :func:`tag_text`, :func:`phase_title`, :func:`role_words`, :func:`controller_of`;
* :func:`card_rows` — a seat's private card as fact rows plus, for Four Factions,
  its duels as a table; :class:`Lang` for values and labels in words.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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
    Lang,
    Tag,
    Words,
    lead,
    sanitise,
)
from sandbox.games.four_factions import words as sentences_ff
from sandbox.games.killer import words as sentences_killer
from sandbox.games.registry import get_variant

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
    "card_rows",
    "controller_of",
    "item_words",
    "known_kinds",
    "line_text",
    "phase_title",
    "role_words",
    "sanitise",
    "tag_text",
    "words_for",
]

D = Mapping[str, Any]
Sentence = Callable[[D, Lang], Words]
Phrase = Callable[[str, D, Lang, bool], str | None]

_SENTENCES: dict[str, dict[str, Sentence]] = {
    "four_factions": sentences_ff.SENTENCES,
    "killer": sentences_killer.SENTENCES,
}
_DECISIONS: dict[str, Phrase] = {
    "four_factions": sentences_ff.decision_phrase,
    "killer": sentences_killer.decision_phrase,
}
CORE_KINDS = ("core.decision", "core.step", "core.game_ended")


def known_kinds(variant: str) -> tuple[str, ...]:
    """Every event kind that has its own sentence in ``variant`` (core kinds included)."""
    return (*CORE_KINDS, *_SENTENCES.get(variant, {}))


def words_for(
    variant: str, kind: str, data: D, language: str = "en", *, you: int | None = None
) -> Words:
    """One event in words. ``you``: the seat whose page this is (its own decisions
    are said in the second person)."""
    L = Lang(language)
    if kind == "core.decision":
        return _decision(variant, data, L, you)
    if kind == "core.step":
        step = data.get("step")
        return Words(
            kind, BOOKKEEPING, L.end(L.say(en=f"Step {step} resolved", zh=f"第{step}步结算完毕"))
        )
    if kind == "core.game_ended":
        return _ended(data, L)
    sentence = _SENTENCES.get(variant, {}).get(kind)
    if sentence is None:
        return _generic(variant, kind, data, L)
    return sentence(data, L)


def item_words(
    variant: str, item: HistoryItem, seat: int | None = None, language: str = "en"
) -> Words:
    """A seat view's history item in words (the view keeps the speech apart from
    the facts; both are put back as the event's data)."""
    data: dict[str, Any] = dict(item.facts)
    if item.speaker is not None:
        data.setdefault("seat", item.speaker)
    if item.speech is not None:
        data.setdefault("speech", item.speech)  # Four Factions' key
        data.setdefault("text", item.speech)  # Killer's key
    if item.kind == "core.decision" and seat is not None:
        data.setdefault("seat", seat)  # a seat only ever sees its own decisions
    if item.kind.startswith("killer."):
        data.setdefault("day", item.day)
    return words_for(variant, item.kind, data, language, you=seat)


def _decision(variant: str, d: D, L: Lang, you: int | None) -> Words:
    seat = d.get("seat")
    payload: D = d.get("payload") or {}
    if variant not in _DECISIONS:
        return _plain_decision(d, payload)
    mine = you is not None and seat == you
    subject = L.say(en="You", zh="你") if mine else L.seat(seat, capital=True)
    phrase = _DECISIONS.get(variant, _no_phrase)(str(d.get("decision")), payload, L, mine)
    if phrase is None:
        phrase = _generic_answer(str(d.get("decision")), payload, L, mine)
    sentence = L.say(en=f"{subject} {phrase}", zh=f"{subject}{phrase}")
    if d.get("fallback"):
        reason = d.get("fallback_reason") or ""
        sentence += L.say(en=f" (fallback: {reason})", zh=f"（默认处理：{reason}）")
    sentence = L.end(sentence)
    text = next((str(payload[k]) for k in ("speech", "text") if payload.get(k)), None)
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


def _no_phrase(decision: str, payload: D, L: Lang, you: bool) -> str | None:
    return None


def _generic_answer(decision: str, payload: D, L: Lang, you: bool) -> str:
    values = [(k, v) for k, v in payload.items() if k not in ("speech", "text")]
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


def phase_title(day: int | None, phase: str | None, language: str = "en") -> str:
    """``Day 2 · speeches`` / ``第2天 · 发言``, ``Night 2`` / ``第2夜``; ``Setup`` first."""
    L = Lang(language)
    name = L.term(phase or "setup")
    if not day:
        return name if L.zh else name.capitalize()
    if phase == "night":  # night N comes before day N in Killer, after it in Four Factions
        return L.say(en=f"Night {day}", zh=f"第{day}夜")
    if phase == "day":
        return L.say(en=f"Day {day}", zh=f"第{day}天")
    return L.say(en=f"Day {day} · {name}", zh=f"第{day}天 · {name}")


def tag_text(tag: Tag, language: str = "en") -> str:
    """``#42 · day 1, proofs · wolves elite, gpt-4o`` — the parts that are known."""
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


def role_words(role: str, language: str = "en") -> str:
    """A role label from the header (``wolves/elite``, ``police``) in words."""
    L = Lang(language)
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
    private: Mapping[str, Any], language: str = "en"
) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """A seat's card: (label, words) rows, and its Four Factions duels as a table
    (header row first) instead of one long paragraph; no duels, no table."""
    L = Lang(language)
    rows = L.facts({k: v for k, v in private.items() if k != "duels"})
    duels = private.get("duels") or []
    if not duels:
        return rows, []
    header = tuple(
        L.say(en=en, zh=zh)
        for en, zh in (
            ("night", "夜"),
            ("half", "半夜"),
            ("role", "身份"),
            ("opponent", "对手"),
            ("struck with", "对方武器"),
            ("struck back with", "反击武器"),
            ("outcomes", "结果"),
            ("HP after", "之后生命值"),
        )
    )
    table: list[tuple[str, ...]] = [header]
    for duel in duels:
        outcomes = L.join(
            L.say(
                en=f"{o.get('by')} {o.get('weapon')}: {o.get('effect')}"
                f"{' (died)' if o.get('died') else ''}",
                zh=f"{L.term(o.get('by'))}{L.term(o.get('weapon'))}：{L.term(o.get('effect'))}"
                f"{'（死亡）' if o.get('died') else ''}",
            )
            for o in duel.get("outcomes") or []
        )
        table.append(
            (
                str(duel.get("day")),
                str(duel.get("half")),
                L.term(duel.get("role")),
                L.seat(duel.get("opponent")) if duel.get("opponent") is not None else "?",
                L.value(duel.get("weapon_struck_with")),
                L.value(duel.get("weapon_struck_back_with")),
                outcomes or "-",
                L.value(duel.get("hp_after")),
            )
        )
    return rows, table
