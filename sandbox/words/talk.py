"""The sentences of table talk (kinds ``talk.*``, issue 38): a team's private
message at night and a dead seat's graveyard message, in English and Chinese,
shared by every variant that offers them (:mod:`sandbox.words.say` looks them
up before a variant's own words); and the phrase of a seat's answer to either
ask. The message itself is player text: quoted after the sentence, never part
of it."""

from __future__ import annotations

from sandbox.core.words import SPEECH, Answer, D, DecisionPhrase, Lang, Sentence, Words
from sandbox.words.parts import Template, ending, from_templates, referee


def _message(kind: str, d: D, L: Lang, to: tuple[str, str]) -> Words:
    """A talk message: "Seat 3 tells <to>", its text quoted after; an empty one
    is the referee's "Seat 3 tells <to> nothing"."""
    seat, text = L.seat(d.get("seat"), capital=True), str(d.get("text", ""))
    whom = L.say(en=to[0], zh=to[1])
    if not text.strip():
        passed = L.say(en=f"{seat} tells {whom} nothing", zh=f"{seat}没有对{whom}说话")
        return referee(kind, L.end(passed), d.get("seat"))
    return Words(
        kind, SPEECH, L.say(en=f"{seat} tells {whom}", zh=f"{seat}对{whom}说"), d.get("seat"), text
    )


def team(d: D, L: Lang) -> Words:  # Killer: KG-3 ruling (killer_chat)
    side = L.term(d.get("team")) if d.get("team") else ""
    return _message("talk.team", d, L, (f"the {side} team", f"{side}队友"))


def graveyard(d: D, L: Lang) -> Words:  # the KG-14, WW-16, FF-19 rulings (graveyard_chat)
    return _message("talk.graveyard", d, L, ("the dead", "亡者"))


TEMPLATES: dict[str, Template] = {
    "talk.graveyard_opened": Template(  # FF-19 ruling (graveyard_chat)
        "Night {day}: the graveyard is open to the dead ({audience:seats})",
        "第{day}夜：亡者之间可以交谈（{audience:seats}）",
    ),
}

SENTENCES: dict[str, Sentence] = {
    "talk.team": team,
    "talk.graveyard": graveyard,
    **from_templates(TEMPLATES),
}


def talk_phrase(to: tuple[str, str]) -> DecisionPhrase:
    """What a seat answered to a talk ask: a message to ``to``, or a pass."""

    def phrase(a: Answer, L: Lang, you: bool) -> str:
        if str(a["message"] or "").strip():
            return L.say(en=f"message{ending(you)} {to[0]}", zh=f"对{to[1]}发言")
        return L.say(en=f"pass{ending(you, 'es')}", zh="选择不发言")

    return phrase


team_phrase = talk_phrase(("the team", "队友"))  # KG-3 ruling
graveyard_phrase = talk_phrase(("the dead", "亡者"))  # KG-14, WW-16, FF-19 rulings
