"""The sentences of table talk (kinds ``talk.*``, issue 38): a team's private
message at night and a dead seat's graveyard message, in English and Chinese,
shared by every variant that offers them (:mod:`sandbox.words.say` looks them
up before a variant's own words); and the phrase of a seat's answer to either
ask. The message itself is player text: quoted after the sentence, never part
of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import SPEECH, Answer, Lang, Sentence, Words
from sandbox.words.parts import ending, referee

D = Mapping[str, Any]


def team(d: D, L: Lang) -> Words:  # Killer: KG-3 ruling (killer_chat)
    seat, text = L.seat(d.get("seat"), capital=True), str(d.get("text", ""))
    side = L.term(d.get("team")) if d.get("team") else ""
    if not text.strip():
        passed = L.say(en=f"{seat} tells the {side} team nothing", zh=f"{seat}没有对{side}队友说话")
        return referee("talk.team", L.end(passed), d.get("seat"))
    lead = L.say(en=f"{seat} tells the {side} team", zh=f"{seat}对{side}队友说")
    return Words("talk.team", SPEECH, lead, d.get("seat"), text)


def graveyard(d: D, L: Lang) -> Words:  # KG-14 ruling (graveyard_chat)
    seat, text = L.seat(d.get("seat"), capital=True), str(d.get("text", ""))
    if not text.strip():
        passed = L.say(en=f"{seat} says nothing to the dead", zh=f"{seat}没有对亡者说话")
        return referee("talk.graveyard", L.end(passed), d.get("seat"))
    lead = L.say(en=f"{seat} tells the dead", zh=f"{seat}对亡者说")
    return Words("talk.graveyard", SPEECH, lead, d.get("seat"), text)


def graveyard_opened(d: D, L: Lang) -> Words:  # FF-19 ruling (graveyard_chat)
    seats = L.seats(d.get("audience", ()))
    text = L.say(
        en=f"Night {d.get('day')}: the graveyard is open to the dead ({seats})",
        zh=f"第{d.get('day')}夜：亡者之间可以交谈（{seats}）",
    )
    return referee("talk.graveyard_opened", L.end(text))


SENTENCES: dict[str, Sentence] = {
    "talk.team": team,
    "talk.graveyard": graveyard,
    "talk.graveyard_opened": graveyard_opened,
}


def team_phrase(a: Answer, L: Lang, you: bool) -> str:
    """What a seat answered to its team's ask: a message, or a pass."""
    if str(a["message"] or "").strip():
        return L.say(en=f"message{ending(you)} the team", zh="对队友发言")
    return L.say(en=f"pass{ending(you, 'es')}", zh="选择不发言")


def graveyard_phrase(a: Answer, L: Lang, you: bool) -> str:
    """What a dead seat answered to the graveyard's ask: a message, or a pass."""
    if str(a["message"] or "").strip():
        return L.say(en=f"message{ending(you)} the dead", zh="对亡者发言")
    return L.say(en=f"pass{ending(you, 'es')}", zh="选择不发言")
