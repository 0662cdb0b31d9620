"""What a baseline Werewolf seat says: the phrasebook, and a speech worded from
the structured claims it carries (WW-12), grounded in the latest death and in
today's seer claims and accusations. Words only: nothing here moves a decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.core.variant import SeatView
from sandbox.games.phrasebook import Phrasebook, Phrases

REMARK_RATE = 0.7  # how often a speech opens with the latest death

PHRASES: Phrases = {
    "night_death": {
        "en": [
            "Seat {a} was killed in the night.",
            "The wolves took seat {a}.",
            "We lost seat {a}.",
        ],
        "zh": ["{a}号昨晚出局了。", "狼人带走了{a}号。", "我们失去了{a}号。"],
    },
    "exiled": {
        "en": ["We exiled seat {a}.", "Seat {a} left by our vote."],
        "zh": ["我们放逐了{a}号。", "{a}号被投了出去。"],
    },
    "seer_against_me": {
        "en": [
            "Seat {a} claims the seer and calls me a werewolf. That is false.",
            "Seat {a}'s seer claim against me is a lie.",
        ],
        "zh": ["{a}号自称预言家说我是狼，这是假的。", "{a}号对我的查验是编的。"],
    },
    "accused_me": {
        "en": ["Seat {a} suspects me, but I am with the village.", "Seat {a}, you have me wrong."],
        "zh": ["{a}号怀疑我，但我是好人。", "{a}号，你看错我了。"],
    },
    "seer_heard": {
        "en": [
            "Seat {a} claims the seer and names seat {b}.",
            "We heard seat {a}'s seer claim on seat {b}.",
        ],
        "zh": ["{a}号自称预言家，点了{b}号。", "{a}号跳预言家，查杀{b}号。"],
    },
    "seer": {
        "en": ["I am the seer.", "I will say it: I am the seer."],
        "zh": ["我是预言家。", "我跳预言家。"],
    },
    "found": {
        "en": [
            "I checked seat {a}: a werewolf. Vote it out.",
            "Seat {a} is a werewolf; my check says so.",
        ],
        "zh": ["我验了{a}号，是狼人，投它。", "{a}号是狼人，我验过。"],
    },
    "liar": {
        "en": ["Seat {a} is lying: a werewolf.", "Seat {a} is a false seer and a werewolf."],
        "zh": ["{a}号在撒谎，是狼人。", "{a}号是假预言家，是狼。"],
    },
    "suspect": {
        "en": [
            "I suspect seat {a}.",
            "My vote goes to seat {a}.",
            "Seat {a} looks like a wolf to me.",
        ],
        "zh": ["我怀疑{a}号。", "我这票投{a}号。", "{a}号像狼。"],
    },
    "vouch": {
        "en": ["I trust seat {a}.", "Seat {a} seems honest."],
        "zh": ["我相信{a}号。", "{a}号像好人。"],
    },
}


def worded(claims: Mapping[str, Any], view: SeatView, book: Phrasebook) -> dict[str, Any]:
    """``claims`` (claim, accuse, vouch; plus ``lying`` for a fake seer's target)
    with a speech that says them."""
    accuse: Sequence[int] = claims.get("accuse", ())
    said = context(view, book) + _answers(view, book, claims.get("claim") == "seer")
    if claims.get("claim") == "seer":
        said.append(book.say("seer"))
        key = "liar" if claims.get("lying") else "found"
        said += [book.say(key, a=s) for s in accuse]
    else:
        said += [book.say("suspect", a=s) for s in accuse]
    said += [book.say("vouch", a=s) for s in claims.get("vouch", ())]
    payload = {k: v for k, v in claims.items() if k != "lying"}
    payload["speech"] = book.join(said) if accuse or claims.get("vouch") else ""
    return payload


def context(view: SeatView, book: Phrasebook) -> list[str]:
    dead: list[Mapping[str, Any]] = list(view.public.get("dead", []))
    if not dead or not book.maybe(REMARK_RATE) or int(dead[-1]["seat"]) == view.seat:
        return []
    last = dead[-1]
    return [book.say("night_death" if last["cause"] == "night" else "exiled", a=int(last["seat"]))]


def _answers(view: SeatView, book: Phrasebook, claims_seer: bool) -> list[str]:
    """Answer today's seer claim or accusation against the speaker; else mention
    today's latest seer claim by another seat."""
    day = int(view.public.get("day", 0))
    today = [
        i
        for i in view.history
        if i.kind == "werewolf.speech" and i.day == day and i.speaker not in (None, view.seat)
    ]
    against = [i for i in today if view.seat in i.facts.get("accuse", ())]
    seers = [i for i in against if i.facts.get("claim") == "seer"]
    if seers:
        return [book.say("seer_against_me", a=seers[-1].speaker)]
    if against:
        return [book.say("accused_me", a=against[-1].speaker)]
    heard = [i for i in today if i.facts.get("claim") == "seer" and i.facts.get("accuse")]
    if heard and not claims_seer:
        claim = heard[-1]
        return [book.say("seer_heard", a=claim.speaker, b=int(claim.facts["accuse"][0]))]
    return []
