"""The parts several variants' words are made of, written once: a referee line,
a table of the referee's sentences written as templates of the event's data,
nightfall and dawn, a table of each seat's choice, a speech or last words with the speaker's claims,
the phrase of a seat that spoke or passed or named a seat, and the seat-board effects of a role
card, a team list, a death and the announced ballots.

A variant's ``words.py`` and ``page.py`` build their sentences from these and
from :class:`~sandbox.core.words.Lang`; what differs between games (a word, a
rule ID) stays in the variant's folder, passed in.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from sandbox.core.words import (
    REFEREE,
    SPEECH,
    Answer,
    BoardEffects,
    BoardMaker,
    D,
    DecisionPhrase,
    Lang,
    Sentence,
    Words,
    speech_claims,
)


def referee(kind: str, sentence: str, speaker: int | None = None) -> Words:
    """The referee states a fact (``speaker``: the seat it is about, if one)."""
    return Words(kind, REFEREE, sentence, speaker)


class _Fields(string.Formatter):
    """Fills a :class:`Template` from an event's data in one language (a missing
    field: None, as ``d.get`` gives it)."""

    def __init__(self, d: D, L: Lang) -> None:
        self.d, self.L = d, L

    def get_value(self, key: int | str, args: Any, kwargs: Any) -> Any:
        return self.d.get(str(key))

    def format_field(self, value: Any, format_spec: str) -> str:
        L = self.L
        if format_spec in ("seat", "Seat"):
            return L.seat(value, capital=format_spec == "Seat")
        if format_spec == "seats":
            return L.seats(value or ())
        if format_spec == "term":
            return L.term(value)
        return format(value, format_spec)


@dataclass(frozen=True)
class Template:
    """A sentence written as two templates, English and Chinese, of the event's
    data fields: ``{day}`` a field as it is, ``{seat:seat}`` a seat ("seat 3";
    ``{seat:Seat}`` "Seat 3"), ``{members:seats}`` a list of seats (a missing
    list: nobody), ``{role:term}`` a game word. ``about``: the field naming the
    seat the sentence is about, if one."""

    en: str
    zh: str
    about: str | None = None

    def fill(self, d: D, L: Lang) -> str:
        """The template in ``L``'s language, filled from ``d`` (no full stop)."""
        return _Fields(d, L).format(L.say(en=self.en, zh=self.zh))

    def stated(self, kind: str, d: D, L: Lang) -> Words:
        """The referee states the filled template as a sentence of ``kind``."""
        about = None if self.about is None else d.get(self.about)
        return referee(kind, L.end(self.fill(d, L)), about)


def from_templates(table: Mapping[str, Template]) -> dict[str, Sentence]:
    """The sentences of the event kinds in ``table``: the referee states each
    kind's :class:`Template`, filled from the event's data."""
    return {kind: partial(template.stated, kind) for kind, template in table.items()}


NIGHT_FALLS = Template("Night {night} falls", "第{night}夜降临")  # "Night 2 falls."


def ending(you: bool, suffix: str = "s") -> str:
    """A verb's ending after its subject: "vote" said to the seat itself,
    "vote" + ``suffix`` of another seat ("votes", "passes")."""
    return "" if you else suffix


def choices(values: object, L: Lang, *, nobody: tuple[str, str] = ("none", "无")) -> str:
    """Each seat's choice, in seat order: ``seat 2 → seat 4, seat 6 → none``;
    ``nobody`` (English, Chinese) for a seat that chose no one."""
    assert isinstance(values, Mapping)
    en, zh = nobody

    def target(seat: object) -> str:
        return L.say(en=en, zh=zh) if seat is None else L.seat(seat)

    shown = [
        L.say(en=f"{L.seat(k)} → {target(v)}", zh=f"{L.seat(k)}→{target(v)}")
        for k, v in sorted(values.items(), key=lambda kv: int(kv[0]))
    ]
    return L.items(shown) if shown else L.say(en="none", zh="无")


def claims_said(claims: tuple[str, ...], L: Lang) -> str:
    """A speech's structured claims after its lead, `` (claims police)``; ''
    when there are none."""
    if not claims:
        return ""
    return L.say(en=f" ({'; '.join(claims)})", zh=f"（{'；'.join(claims)}）")


def dawn_words(kind: str, d: D, L: Lang, died: tuple[str, str], shown: str) -> Words:
    """Day ``day`` dawns, with the night's ``victim`` if there is one: ``died``
    (English, Chinese) after the seat ("was killed", "昨夜被杀"), then ``shown``
    (what its death revealed, in words; '' for nothing)."""
    day, victim = d.get("day"), d.get("victim")
    if victim is None:
        text = L.say(
            en=f"Day {day} dawns; nobody died in the night", zh=f"第{day}天天亮，昨夜无人死亡"
        )
    else:
        en, zh = died
        text = L.say(
            en=f"Day {day} dawns; {L.seat(victim)} {en}{shown}",
            zh=f"第{day}天天亮，{L.seat(victim)}{zh}{shown}",
        )
    return referee(kind, L.end(text))


def spoken(
    kind: str, d: D, L: Lang, text: str, *, last_words: bool = False, extra: str = ""
) -> Words:
    """A speech (or last words) with ``text`` as the table heard it: "Seat 3
    says", the speech quoted after it; "Seat 3 passes." (or "leaves no last
    words") when it is empty. The speaker's structured claims are said in the
    sentence, never confirmed (KG-14, WW-12), then ``extra``."""
    seat = L.seat(d.get("seat"), capital=True)
    claims = speech_claims(d, L)
    after = claims_said(claims, L) + extra
    if not text.strip():
        passed = (
            L.say(en=f"{seat} leaves no last words", zh=f"{seat}没有留遗言")
            if last_words
            else L.say(en=f"{seat} passes", zh=f"{seat}选择过")
        )
        sentence = L.end(passed + after)
        return Words(kind, SPEECH if claims else REFEREE, sentence, d.get("seat"), None, claims)
    lead = (
        L.say(en=f"{seat}'s last words", zh=f"{seat}的遗言")
        if last_words
        else L.say(en=f"{seat} says", zh=f"{seat}说")
    )
    return Words(kind, SPEECH, lead + after, d.get("seat"), text, claims)


def spoke(a: Answer, L: Lang, you: bool, also: str = "") -> str:
    """What a seat answered to a speech or last words: it spoke or passed, then
    ``also`` (e.g. a concession), then the claims it made (never confirmed)."""
    said = bool(str(a["speech"] or "").strip())
    verb = L.say(
        en=f"speak{ending(you)}" if said else "pass" + ending(you, "es"),
        zh="发言" if said else "选择过",
    )
    return verb + also + claims_said(speech_claims(a, L), L)


def seat_choice(field: str, chose: tuple[str, str], nobody: tuple[str, str]) -> DecisionPhrase:
    """The phrase of a decision that names one seat in ``field``, or none:
    ``chose`` (English, Chinese) with ``{seat}`` for the seat, ``nobody`` when
    the field is None. ``{s}``/``{es}`` in the English stand for the verb's
    ending ("vote{s} for {seat}": "votes for seat 5", to the seat itself "vote
    for seat 5")."""
    (en, zh), (nobody_en, nobody_zh) = chose, nobody

    def phrase(a: Answer, L: Lang, you: bool) -> str:
        seat, s, es = a[field], ending(you), ending(you, "es")
        if seat is None:
            return L.say(en=nobody_en.format(s=s, es=es), zh=nobody_zh)
        named = L.seat(seat)
        return L.say(en=en.format(s=s, es=es, seat=named), zh=zh.format(seat=named))

    return phrase


# ------------------------------------------------------------ seat board


def board_role(d: D, L: Lang) -> BoardEffects:
    """A role card: the seat's role, in words."""
    return {"role": {str(d["seat"]): L.term(d.get("role"))}}


def board_team(d: D, L: Lang) -> BoardEffects:
    """A team list: each member's role, in words."""
    return {"role": {str(s): L.term(d.get("role")) for s in d.get("members") or ()}}


def board_death(shown: str) -> BoardMaker:
    """The board effects of a death (the night's ``victim`` or a voted-out
    ``seat``; none: nothing), with the role it showed if the data's ``shown``
    field has one."""

    def effects(d: D, L: Lang) -> BoardEffects:
        seat = d.get("victim", d.get("seat"))
        if seat is None:
            return {}
        fx: BoardEffects = {"dead": [int(seat)]}
        if d.get(shown):
            fx["role"] = {str(seat): L.term(d[shown])}
        return fx

    return effects


def board_ballots(d: D, L: Lang) -> BoardEffects:
    """Announced ballots: whom each seat voted for."""
    return {"vote": {str(s): L.seat(t) for s, t in (d.get("ballots") or {}).items()}}
