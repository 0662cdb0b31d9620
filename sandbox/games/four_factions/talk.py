"""The Four Factions bot's words: its phrasebook in English and Chinese, a day
statement in the seat's language (FF-13..FF-15), and its free speech on an open
day, grounded in what the seat has seen: an accusation against it, its own last
duel, else that it is watching. Words only: nothing here moves a decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.games.four_factions.words import VOCABULARY
from sandbox.games.phrasebook import Phrasebook, Phrases

PHRASES: Phrases = {
    "proofs": {
        "en": [
            "I am {am}; I am none of the other three.",
            "My faction is {am}.",
            "Count me with {am}.",
        ],
        "zh": ["我是{am}，不是另外三方。", "我的阵营是{am}。", "我站{am}。"],
    },
    "accusation": {
        "en": [
            "Seat {a} is really {faction}; its day-1 claim is false.",
            "Seat {a} lied about its faction: it is {faction}.",
            "Do not believe seat {a}: it is {faction}.",
        ],
        "zh": ["{a}号其实是{faction}，它第一天的声明是假的。", "{a}号谎报阵营，它是{faction}。"],
    },
    "protection": {
        "en": ["I believe seat {a} told the truth.", "Seat {a} is honest; I protect it."],
        "zh": ["我相信{a}号说的是真话。", "{a}号是诚实的，我保它。"],
    },
    "accused_me": {
        "en": ["Seat {a} says I am {faction}; that is false.", "Seat {a} has my faction wrong."],
        "zh": ["{a}号说我是{faction}，这是假的。", "{a}号把我的阵营说错了。"],
    },
    "my_duel": {
        "en": ["Seat {a} and I fought on day {day}.", "My duel with seat {a} tells me a lot."],
        "zh": ["第{day}天我和{a}号交过手。", "我和{a}号的决斗说明了很多。"],
    },
    # A weapon an opponent struck back with (FF-12), told so that the speaker's
    # faction-mates may use it (level 4); one key per weapon (evidence.told_weapons).
    "seen_rock": {"en": ["Seat {a} fights with rock."], "zh": ["{a}号用的是石头。"]},
    "seen_scissors": {"en": ["Seat {a} fights with scissors."], "zh": ["{a}号用的是剪刀。"]},
    "seen_paper": {"en": ["Seat {a} fights with paper."], "zh": ["{a}号用的是布。"]},
    "watching": {
        "en": ["Day {day}: I keep my eyes on my rivals.", "I am watching who fights whom."],
        "zh": ["第{day}天：我盯着对手。", "我在看谁和谁交手。"],
    },
}


def faction_word(book: Phrasebook, faction: str) -> str:
    return VOCABULARY.term(book.language, faction) or faction


def statement(book: Phrasebook, key: str, **slots: Any) -> str:
    """A day statement's words (``am`` and ``faction`` in the seat's language)."""
    for name in ("am", "faction"):
        if name in slots:
            slots[name] = faction_word(book, str(slots[name]))
    return book.say(key, **slots)


def open_speech(book: Phrasebook, me: Mapping[str, Any], pub: Mapping[str, Any], seat: int) -> str:
    """Free speech: answer an accusation against the seat, else recall its last
    duel, else say it is watching."""
    against = [a for a in pub.get("accusations", []) if a.get("target") == seat]
    if against:
        last = against[-1]
        return statement(book, "accused_me", a=last["seat"], faction=last["faction"])
    duels = [d for d in me.get("duels", []) if d.get("opponent") is not None]
    if duels:
        last_duel = duels[-1]
        return book.say("my_duel", a=last_duel["opponent"], day=last_duel["day"])
    return book.say("watching", day=pub.get("day", 1))
