"""How a speech-making bot answers an open day's message decision (OD-5): post
when it has something to say, wait otherwise.

A variant's baseline bot knows how to make a day speech; an open day asks
instead "post a message now, or wait" (a request whose first field is
``speak``). This adapter asks the bot for the speech it would make, then posts
it when the seat has something to say and waits otherwise:

- its first message of the day, if the speech says anything (text or a claim);
- a reply, when a message since its last one named it (accused or vouched for it);
- news, when the speech accuses or vouches for a seat it has not named today,
  claims a role it has not claimed today, or concedes.

Pure in the view and the bot's own answer, so a game stays replayable. No
variant is named here: a speech's claims are read from the history items'
facts (``claim``, ``accuse``, ``vouch``) where the variant records them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.core.discussion import SPEAK
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext, Seating
from sandbox.core.variant import HistoryItem, SeatView

OPENED = "discussion.opened"  # the event that opens an open day (OD-4)
NO_CLAIM = ("", "none", None)


class OpenDayTalk(Agent):
    """A variant's baseline bot that answers an open day's asks by :func:`decide`
    (every other decision is the bot's own, unchanged)."""

    kind = "baseline"
    replayable = True

    def __init__(self, bot: Agent) -> None:
        self.bot = bot

    def __getattr__(self, name: str) -> Any:
        # What the bot offers beyond the seat contract (its deducing level,
        # issue 37: ``at_level``) is the bot's own.
        return getattr(self.bot, name)

    def attach(self, seating: Seating) -> None:
        self.bot.attach(seating)

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        return await decide(self.bot, ctx)

    def describe(self) -> dict[str, Any]:
        return self.bot.describe()

    async def close(self) -> None:
        await self.bot.close()


def asks_to_speak(ctx: DecisionContext) -> bool:
    """Whether the request is an open day's ask (its fields include ``speak``)."""
    return any(f.name == SPEAK for f in ctx.request.fields)


async def decide(bot: Agent, ctx: DecisionContext) -> AgentAnswer:
    """``bot``'s answer to ``ctx``; for an open day's ask, its speech posted or a wait.
    A bot that answers open days itself (``answers_open_day``: it knows what the
    variant's messages carry, such as Four Factions' owed statements, OD-3) is
    asked directly."""
    if not asks_to_speak(ctx) or getattr(bot, "answers_open_day", False):
        return await bot.decide(ctx)
    request = ctx.request
    speech_request = dataclasses.replace(
        request, fields=tuple(f for f in request.fields if f.name != SPEAK)
    )

    def validate(payload: object) -> dict[str, Any]:
        # the speech is checked as the post it would be (OD-2), then handed back without speak
        posted = dict(payload) if isinstance(payload, Mapping) else {}
        checked = ctx.validate({**posted, SPEAK: True})
        return {k: v for k, v in checked.items() if k != SPEAK}

    speech_ctx = dataclasses.replace(ctx, request=speech_request, validate=validate)
    answer = await bot.decide(speech_ctx)
    wait = AgentAnswer({SPEAK: False}, answer.note, calls=answer.calls, repairs=answer.repairs)
    if answer.payload is None or not worth_posting(ctx.view, request.seat, answer.payload):
        return wait  # the bot found nothing legal to say, or nothing new: it waits
    posted = {SPEAK: True, **answer.payload}
    return AgentAnswer(posted, answer.note, calls=answer.calls, repairs=answer.repairs)


def worth_posting(view: SeatView, seat: int, speech: Mapping[str, Any]) -> bool:
    """Whether ``seat`` has something to say with ``speech`` in today's chat."""
    if speech.get("concede") is True:
        return True
    today = todays_messages(view.history)
    mine = [item for item in today if item.speaker == seat]
    if not mine:
        return says_anything(speech)
    last = mine[-1].seq
    if any(seat in _named(item) for item in today if item.seq > last and item.speaker != seat):
        return says_anything(speech)  # a reply to whoever named it
    claimed = {item.facts.get("claim") for item in mine}
    named: set[int] = set().union(*(_named(item) for item in mine))
    new_claim = speech.get("claim") not in NO_CLAIM and speech.get("claim") not in claimed
    return new_claim or bool(_seats(speech) - named)


def todays_messages(history: Sequence[HistoryItem]) -> list[HistoryItem]:
    """The messages posted since the last open day opened (every item with a speaker)."""
    start = max((item.seq for item in history if item.kind == OPENED), default=None)
    if start is None:
        return []
    return [item for item in history if item.seq > start and item.speaker is not None]


def says_anything(speech: Mapping[str, Any]) -> bool:
    text = str(speech.get("speech", speech.get("text", ""))).strip()
    return bool(text) or speech.get("claim") not in NO_CLAIM or bool(_seats(speech))


def _named(item: HistoryItem) -> set[int]:
    return _seats(item.facts)


def _seats(said: Mapping[str, Any]) -> set[int]:
    found: set[int] = set()
    for key in ("accuse", "vouch"):
        value = said.get(key) or ()
        if isinstance(value, int):
            value = (value,)
        found.update(int(s) for s in value if s is not None)
    return found
