"""What a baseline Killer seat says, and the structured claims that match it (KG-14).

The bot decides a :class:`Plan` (whom it accuses or vouches for, which police
checks it publishes, which false claimants it names); this module words it in
the seat's language and grounds it in what the seat has seen: the latest
death, an accusation or a police claim against the speaker, another seat's
police claim, the reason for its suspicion (a push against a seat later shown
innocent, a ballot, a police claim, silence). The structured claims carry the
plan exactly, so other bots read the speech from its claims, whatever the words.
The phrasings themselves are data, ``phrases.toml`` beside this module (the
bot's ``PHRASES``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sandbox.games.killer.evidence as ev
from sandbox.core.variant import SeatView
from sandbox.games.phrasebook import Phrasebook

REMARK_RATE = 0.7  # how often a speech opens with the latest death


@dataclass
class Plan:
    """What a speech means, before it is worded."""

    accuse: list[int] = field(default_factory=list)  # the seat's own suspicion
    vouch: list[int] = field(default_factory=list)
    found: list[int] = field(default_factory=list)  # "I am police: a killer" (true or faked)
    cleared: list[int] = field(default_factory=list)  # "I am police: not a killer"
    liars: list[int] = field(default_factory=list)  # false police claimants, named killers
    last_words: bool = False
    reasoned: list[str] = field(default_factory=list)  # a deducing seat's own sentences

    @property
    def claims_police(self) -> bool:
        return bool(self.found or self.cleared or self.liars)


ROLE_WORDS = {"en": {}, "zh": {"police": "警察", "killer": "杀手", "civilian": "平民"}}


def speech_payload(
    plan: Plan, view: SeatView, table: ev.Table, book: Phrasebook, fields: Sequence[str]
) -> dict[str, Any]:
    """The speech's text and its structured claims, for the fields the request has."""
    accuse = sorted(set(plan.found) | set(plan.liars) | set(plan.accuse))
    vouch = sorted((set(plan.cleared) | set(plan.vouch)) - set(accuse))  # KG-14: never both
    payload: dict[str, Any] = {"speech": _words(plan, view, table, book, vouch)}
    if "claim" in fields:
        payload["claim"] = "police" if plan.claims_police else "none"
    if "accuse" in fields:
        payload["accuse"] = accuse
    if "vouch" in fields:
        payload["vouch"] = vouch
    return payload


def _words(plan: Plan, view: SeatView, table: ev.Table, book: Phrasebook, vouch: list[int]) -> str:
    said: list[str] = []
    if plan.last_words:
        said.append(book.say("last_words"))
    said += _context(view, table, book)
    said += _answers(view, table, book, plan)
    if plan.claims_police:
        said.append(book.say("police"))
    said += [book.say("found", a=s) for s in plan.found]
    said += [book.say("liar", a=s) for s in plan.liars if s not in plan.found]
    said += [book.say("cleared", a=s) for s in plan.cleared if s in vouch]
    if plan.reasoned:  # a deducing seat (issue 37): its reasons, and no "Pass."
        return book.join([*said, *plan.reasoned])
    said += [book.say("vouch", a=s) for s in plan.vouch if s in vouch]
    for seat in plan.accuse:
        said.append(book.say("suspect", a=seat) + _reason(seat, view, table, book))
    if not (plan.claims_police or plan.accuse or plan.vouch):
        said.append(book.say("nothing"))
    said.append(book.say("pass"))
    return book.join(said)


def _context(view: SeatView, table: ev.Table, book: Phrasebook) -> list[str]:
    """The latest death, as an opening remark (most speeches)."""
    dead: list[Mapping[str, Any]] = list(view.public.get("dead", []))
    if not dead or not book.maybe(REMARK_RATE):
        return []
    last = dead[-1]
    seat = int(last["seat"])
    if seat == view.seat:  # last words: the speaker's own death needs no telling
        return []
    if last["cause"] == "night":
        return [book.say("night_death", a=seat)]
    role = str(last.get("role") or "")
    role_word = ROLE_WORDS.get(book.language, {}).get(role, role)
    said = book.say("role_was", role=role_word) if role else ""
    return [book.say("voted_out", a=seat, role=said)]


def _answers(view: SeatView, table: ev.Table, book: Phrasebook, plan: Plan) -> list[str]:
    """Answer today's claims and accusations against the speaker, and weigh one
    police claim made by another seat."""
    day = int(view.public.get("day", 0))
    me = view.seat
    said: list[str] = []
    claims_today = [c for c in table.claims if c.day == day and c.speaker != me]
    against_me = [c for c in claims_today if c.killer and c.target == me]
    if against_me:
        said.append(book.say("claimed_me", a=against_me[-1].speaker))
    accusers = [s for d, s, t in table.accused_on if d == day and t == me and s != me]
    if accusers and not against_me:
        said.append(book.say("accused_me", a=accusers[-1]))
    others = [
        c for c in claims_today if c.killer and c.target != me and c.speaker not in plan.liars
    ]
    if others and not plan.claims_police:
        claim = others[-1]
        believed = claim.target in plan.accuse
        key = "believe_claim" if believed else "doubt_claim"
        said.append(book.say(key, a=claim.speaker, b=claim.target))
    return said


def _reason(seat: int, view: SeatView, table: ev.Table, book: Phrasebook) -> str:
    """Why the speaker suspects ``seat``, from the public record."""
    innocent = ev.innocents_shown(table, set()) - {view.seat}
    pushed = [t for s, t, _ in table.accusations if s == seat and t in innocent]
    if pushed:
        return book.say("because_pushed", a=seat, b=pushed[-1])
    voted = [b.get(seat) for _, _, b in table.ballots]
    voted_innocent = [t for t in voted if t is not None and t in innocent]
    if voted_innocent:
        return book.say("because_ballot", a=seat, b=voted_innocent[-1])
    if any(c.killer and c.target == seat and c.speaker != view.seat for c in table.claims):
        return book.say("because_claim", a=seat)
    if table.spoke[seat] and table.words[seat] == 0:
        return book.say("because_quiet", a=seat)
    return book.say("because_none", a=seat)
