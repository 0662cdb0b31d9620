"""Free speech in English and Chinese turned into evidence (issue 37, item 2).

:func:`parse_speech` reads what a speaker says of itself and of other seats:
role claims ("I am the seer", "我是预言家", "I am not the seer"), statements
("seat 4 is a wolf", "4号不是狼", "seat 6 is clean"), check reports ("I checked
4, wolf", "查杀4号"), vote promises ("I will vote 6", "我投6号"), accusations
("I suspect seat 4") and vouches ("I trust seat 4"). The roles' words come from
a :class:`~sandbox.deduction.tables.RoleTable`; the grammar of each language is
in :mod:`.speech_en` and :mod:`.speech_zh`.

What it leaves out on purpose, as a person would not take it as the speaker's
own word: quoted text, what another seat said ("seat 3 says he is the seer"),
conditions ("if seat 4 is the seer, …") and questions. Numbers that do not
name a seat ("day 2", "3 wolves left") stay numbers: a bare number is a seat
only after a verb that takes one ("I checked 4", "vote 6", "验4") or at the
head of a statement ("4 is a wolf").
"""

from __future__ import annotations

import re
from collections.abc import Collection

from sandbox.deduction import speech_en, speech_zh
from sandbox.deduction.evidence import Evidence
from sandbox.deduction.reading import Reading
from sandbox.deduction.tables import RoleTable

_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|「[^」]*」|『[^』]*』')
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[a-z]{2,}")
# A sentence ends at . ! ? (either width) or a line break; the ending is kept to
# tell a question.
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？\n]*")


def parse_speech(
    text: str,
    speaker: int,
    table: RoleTable,
    seats: Collection[int] | None = None,
) -> tuple[Evidence, ...]:
    """The evidence ``speaker``'s ``text`` states, in order, without repeats.

    ``seats``: the seat numbers of the game (a reference to any other number is
    dropped); None takes every number.
    """
    reading = Reading(speaker, table, seats)
    text = _QUOTED.sub(" ", text)
    text = speech_zh.seats(speech_en.seats(text.lower()))
    for match in _SENTENCES.finditer(text):
        sentence = match.group()
        if "?" in sentence or "？" in sentence:
            continue  # a question states nothing
        if _CJK.search(sentence):
            speech_zh.read(sentence, reading)
        if _LATIN.search(sentence):
            speech_en.read(sentence, reading)
    return tuple(reading.found)
