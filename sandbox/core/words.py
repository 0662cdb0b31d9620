"""The building blocks of the words renderer: what one event becomes (:class:`Words`),
the language it is said in (:class:`Lang`), the shared vocabulary, and the one
sanitiser for player text on a terminal.

Nothing here knows the engine: sentences are built from an event's JSON form
(``kind`` + ``data``), so saved transcripts, live games and seat views all go
through the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

LANGUAGES = ("en", "zh")

# What a line is, for styling and filtering.
SPEECH = "speech"  # a player's own words (always quoted data, never the referee's voice)
REFEREE = "referee"  # the referee states a fact (public or private)
DECISION = "decision"  # a seat's answer to a request (seen by that seat and the referee)
ENDING = "ending"  # the result of the game
BOOKKEEPING = "bookkeeping"  # engine housekeeping (a step resolved)
CATEGORIES = (SPEECH, REFEREE, DECISION, ENDING, BOOKKEEPING)


@dataclass(frozen=True)
class Words:
    """One event in words.

    ``sentence`` is the referee's voice and never contains player text; a player's
    text is kept apart in ``speech`` (quoted when shown) and the model's private
    reasoning in ``note``. ``claims`` are the structured claims a speech carries
    (also said in ``sentence``), listed for boards and filters.
    """

    kind: str
    category: str
    sentence: str
    speaker: int | None = None
    speech: str | None = None
    claims: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Tag:
    """Where a line sits: its event number, day and phase, and — for the referee
    audience only — the speaker's true role and controller (model, bot, human)."""

    seq: int | None = None
    day: int | None = None
    phase: str | None = None
    role: str | None = None
    controller: str | None = None


class Lang:
    """A language: its vocabulary and how it names seats, lists and values."""

    def __init__(self, code: str) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r} (known: {', '.join(LANGUAGES)})")
        self.code = code

    @property
    def zh(self) -> bool:
        return self.code == "zh"

    def say(self, *, en: str, zh: str) -> str:
        return zh if self.zh else en

    def term(self, word: object) -> str:
        """A game word (faction, role, weapon, result, stage) in this language."""
        text = str(word)
        if self.zh:
            return ZH_TERMS.get(text, text.replace("_", " "))
        return EN_TERMS.get(text, text.replace("_", " "))

    def seat(self, seat: object, *, capital: bool = False) -> str:
        if seat is None:
            return self.say(en="Nobody" if capital else "nobody", zh="无人")
        if self.zh:
            return f"{seat}号"
        return f"{'Seat' if capital else 'seat'} {seat}"

    def seats(self, seats: Iterable[object], *, capital: bool = False) -> str:
        listed = [str(s) for s in seats]
        if not listed:
            return self.say(en="nobody", zh="无人")
        if self.zh:
            return "、".join(listed) + "号"
        word = "Seats" if capital else "seats"
        return (
            f"{word} {', '.join(listed)}"
            if len(listed) > 1
            else self.seat(listed[0], capital=capital)
        )

    def join(self, parts: Iterable[str]) -> str:
        return ("；" if self.zh else "; ").join(parts)

    def items(self, parts: Iterable[str]) -> str:
        return ("、" if self.zh else ", ").join(parts)

    def end(self, sentence: str) -> str:
        """A full stop in this language."""
        return sentence + ("。" if self.zh else ".")

    def value(self, value: Any) -> str:
        """A value in plain words: none/yes/no, lists joined, nested tables flattened."""
        if value is None:
            return self.say(en="none", zh="无")
        if isinstance(value, bool):
            return self.say(en="yes" if value else "no", zh="是" if value else "否")
        if isinstance(value, Mapping):
            if not value:
                return self.say(en="none", zh="无")
            sep = "，" if self.zh else ", "
            return sep.join(f"{self.label(k)} {self.value(v)}" for k, v in value.items())
        if isinstance(value, list | tuple):
            if not value:
                return self.say(en="none", zh="无")
            nested = any(isinstance(v, Mapping | list | tuple) for v in value)
            sep = ("；" if self.zh else "; ") if nested else ("、" if self.zh else ", ")
            return sep.join(self.value(v) for v in value)
        if isinstance(value, str):
            return self.term(value)
        return str(value)

    def label(self, key: object) -> str:
        """A field name as words: ``fellow_police`` → ``fellow police`` (同伴警察)."""
        text = str(key)
        if self.zh:
            return ZH_LABELS.get(text, text.replace("_", " "))
        return text.replace("_", " ")

    def facts(self, facts: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(label, words) per fact, in the order given."""
        return [(self.label(k), self.value(v)) for k, v in facts.items()]


EN_TERMS: dict[str, str] = {
    "first_half": "first half",
    "second_half": "second half",
    "last_words": "last words",
    "not killer": "not a killer",
    "day_limit": "day limit",
    "forced_draw": "forced draw",
}

# Game words in Chinese; the same words the Chinese rules and prompts use.
ZH_TERMS: dict[str, str] = {
    # Four Factions
    "wolves": "狼人",
    "spies": "间谍",
    "justice": "司法",
    "army": "军队",
    "elite": "最强精英",
    "regular": "非最强精英",
    "rock": "石头",
    "scissors": "剪刀",
    "paper": "布",
    "anti-rock": "防石头",
    "anti-scissors": "防剪刀",
    "anti-paper": "防布",
    "kill": "秒杀",
    "wound": "轻伤",
    "proofs": "证明",
    "accusation": "指控",
    "protection": "保护",
    "open": "自由发言",
    "quiet": "不许动武",
    "loadout": "选择武器和盾牌",
    "first_half": "上半夜",
    "second_half": "下半夜",
    "attacker": "攻击者",
    "defender": "防守者",
    "corpse": "尸体",
    "you": "你",
    "opponent": "对方",
    "speak": "发言",
    "attack": "攻击",
    # Killer
    "killer": "杀手",
    "police": "警察",
    "civilian": "平民",
    "not killer": "不是杀手",
    "kill_opinion": "杀人意见",
    "check_opinion": "查验意见",
    "speech": "发言",
    "speeches": "发言",
    "last_words": "遗言",
    "vote": "投票",
    "revote": "重新投票",
    "dawn": "天亮",
    "over": "结束",
    "none": "无",
    # shared
    "win": "胜",
    "lose": "负",
    "draw": "平局",
    "day": "白天",
    "night": "夜晚",
    "setup": "开局",
    "day_limit": "达到天数上限",
    "forced_draw": "硬性平局",
    "surrender": "认输",
    "pairs_decided": "两对敌对关系都已分出结果",
    "killers_eliminated": "杀手全部死亡",
    "police_eliminated": "警察全部死亡",
    "civilians_eliminated": "平民全部死亡",
    "aborted": "中止",
    "referee": "裁判",
}

ZH_LABELS: dict[str, str] = {
    "seat": "座位",
    "faction": "阵营",
    "elite": "最强精英",
    "weapon": "武器",
    "shield": "盾牌",
    "max_hp": "最大生命值",
    "hp": "生命值",
    "alive": "存活",
    "known_factions": "已知阵营",
    "my_elite": "本阵营最强精英",
    "loadout": "今夜装备",
    "duels": "对决",
    "day": "天",
    "half": "半夜",
    "role": "身份",
    "opponent": "对手",
    "weapon_struck_with": "对方所用武器",
    "weapon_struck_back_with": "反击武器",
    "outcomes": "结果",
    "hp_after": "之后生命值",
    "fellow_killers": "同伴杀手",
    "fellow_police": "同伴警察",
    "kills": "杀人",
    "checks": "查验",
    "my_opinions": "我的意见",
    "night": "夜",
    "suspect": "查验对象",
    "answer": "答复",
    "target": "目标",
    "about": "关于",
    "living": "存活",
    "dead": "死亡",
    "phase": "阶段",
    "stage": "阶段",
    "claims": "声明",
}

# C0/C1 controls and the bidirectional overrides that could reorder a line; \n and
# \t are handled apart (a newline would let a speech start a line of its own).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def lead(sentence: str) -> str:
    """A sentence that introduces a quotation loses its full stop: ``Seat 3 speaks: "…"``."""
    return sentence[:-1] if sentence.endswith((".", "。")) else sentence


def sanitise(text: str) -> str:
    """Player text made safe for one terminal line: control and escape characters
    removed, line breaks shown as ``↵`` so a speech can never begin a line of its
    own (and look like a referee line, issue 14)."""
    flat = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _CONTROLS.sub("", flat).replace("\n", " ↵ ")
