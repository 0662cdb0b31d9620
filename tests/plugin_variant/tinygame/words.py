"""Tiny game in words, English and Chinese: one sentence per event kind (from the
event's JSON data), the decision phrases, the game's own vocabulary, and what
an event changes on the viewer's seat board. ``TinyGame.words()`` returns
:data:`WORDS`; the terminal, ``sandbox view``, the HTML pages, the browser seats
and ``describe_event`` all say the game through it. Player text never enters a
sentence: it travels in ``Words.speech``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import (
    REFEREE,
    SPEECH,
    BoardEffects,
    BoardMaker,
    Lang,
    Sentence,
    VariantWords,
    Vocabulary,
    Words,
)

D = Mapping[str, Any]


def started(d: D, L: Lang) -> Words:  # TG-1
    seats, rounds = d.get("seats"), d.get("rounds")
    text = L.say(
        en=f"Tiny game with {seats} seats: one fox among the hens, {rounds} rounds at most",
        zh=f"小游戏，共{seats}个座位：母鸡中藏着一只狐狸，最多{rounds}轮",
    )
    return Words("tinygame.started", REFEREE, L.end(text))


def role(d: D, L: Lang) -> Words:  # TG-2
    seat = L.seat(d["seat"], capital=True)
    text = L.say(
        en=f"{seat} is dealt the {d.get('role')} card", zh=f"{seat}的身份：{L.term(d.get('role'))}"
    )
    return Words("tinygame.role", REFEREE, L.end(text), d["seat"])


def round_started(d: D, L: Lang) -> Words:  # TG-3
    day, living = d.get("day"), L.seats(d.get("living", ()))
    text = L.say(en=f"Round {day}: {living} speak in turn", zh=f"第{day}轮：{living}依次发言")
    return Words("tinygame.round", REFEREE, L.end(text))


def speech(d: D, L: Lang) -> Words:  # TG-3
    seat = L.seat(d.get("seat"), capital=True)
    if not str(d.get("text", "")).strip():
        return Words(
            "tinygame.speech",
            REFEREE,
            L.end(L.say(en=f"{seat} passes", zh=f"{seat}选择过")),
            d.get("seat"),
        )
    return Words("tinygame.speech", SPEECH, L.say(en=f"{seat} says", zh=f"{seat}说"),
                 d.get("seat"), str(d["text"]))  # fmt: skip


def ballots(d: D, L: Lang) -> Words:  # TG-4
    shown = L.items(
        L.say(en=f"{L.seat(s)} → {L.seat(t)}", zh=f"{L.seat(s)}→{L.seat(t)}")
        for s, t in sorted((d.get("ballots") or {}).items(), key=lambda kv: int(kv[0]))
    )
    text = L.say(en=f"Ballots of round {d.get('day')}: {shown}",
                 zh=f"第{d.get('day')}轮的选票：{shown}")  # fmt: skip
    return Words("tinygame.ballots", REFEREE, L.end(text))


def ejected(d: D, L: Lang) -> Words:  # TG-4
    if d.get("seat") is None:
        return Words("tinygame.ejected", REFEREE,
                     L.end(L.say(en="Nobody is ejected", zh="无人出局")))  # fmt: skip
    seat, what = L.seat(d["seat"], capital=True), L.term(d.get("role"))
    text = L.say(en=f"{seat} is ejected: a {what}", zh=f"{seat}出局，身份是{what}")
    return Words("tinygame.ejected", REFEREE, L.end(text), d["seat"])


SENTENCES: dict[str, Sentence] = {
    "tinygame.started": started,
    "tinygame.role": role,
    "tinygame.round": round_started,
    "tinygame.speech": speech,
    "tinygame.ballots": ballots,
    "tinygame.ejected": ejected,
}


def decision_phrase(decision: str, payload: D, L: Lang, you: bool) -> str | None:
    """What a seat answered, after its subject: "votes for seat 2", "speaks"."""
    s = "" if you else "s"
    if decision == "vote":
        target = payload.get("target")
        if target is None:
            return L.say(en=f"abstain{s}", zh="弃权")
        return L.say(en=f"vote{s} for {L.seat(target)}", zh=f"投票给{L.seat(target)}")
    if decision == "speech":
        said = bool(str(payload.get("speech") or "").strip())
        return L.say(en=("speak" + s) if said else ("pass" + ("" if you else "es")),
                     zh="发言" if said else "选择过")  # fmt: skip
    return None


VOCABULARY = Vocabulary(
    terms={
        "zh": {
            "fox": "狐狸",
            "hen": "母鸡",
            "fox_caught": "狐狸出局",
            "fox_survived": "狐狸坚持到最后",
            "round_limit": "达到轮数上限",
        }
    },
    labels={"zh": {"ejected": "出局", "rounds": "轮数", "speaking_order": "发言顺序"}},
)


def _board_role(d: D, L: Lang) -> BoardEffects:  # a seat's own card
    return {"role": {str(d["seat"]): L.term(d.get("role"))}}


def _board_ejected(d: D, L: Lang) -> BoardEffects:  # TG-4: out, role shown
    if d.get("seat") is None:
        return {}
    return {"dead": [int(d["seat"])], "role": {str(d["seat"]): L.term(d.get("role"))}}


BOARD: dict[str, BoardMaker] = {"tinygame.role": _board_role, "tinygame.ejected": _board_ejected}

WORDS = VariantWords(
    sentences=SENTENCES, decision_phrase=decision_phrase, vocabulary=VOCABULARY, board=BOARD
)
