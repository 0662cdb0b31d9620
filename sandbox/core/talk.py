"""Table talk (issue 38): a team's private messages at night and the
graveyard's talk, rulings a variant offers off by default. Pure helpers every
variant that offers them calls (as ``core.discussion`` is for open days): the
requests, the split of a step's answers, and the events (``TeamMessage``,
``GraveyardMessage`` in ``core.events``). Each message is one short text; an
empty text passes. The variant decides when its team talks; the dead are asked
with the first step of each night (docs/rules-killer.md, KG-14 ruling)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from sandbox.core.events import Event, GraveyardMessage
from sandbox.core.requests import DecisionRequest, Payload, Text, request_id

TALK_CHARS = 600  # a short message: a night's word, not a day's speech
GRAVEYARD = "graveyard_message"  # the decision's name in every variant
TEAM = "team_message"
GRAVEYARD_FIELD = Text(
    "message", "your message to the dead and the spectators only (empty text passes)", TALK_CHARS
)


def team_field(team: str) -> Text:
    return Text(
        "message", f"your message to the living {team} team only (empty text passes)", TALK_CHARS
    )


def text_of(payload: Payload) -> str:
    return str(payload.get("message") or "")


def graveyard_requests(
    dead: Iterable[int], step: int, rule: str, day: int
) -> tuple[DecisionRequest, ...]:
    """One ask per dead seat, in seat order: a message to the graveyard or a pass."""
    return tuple(
        DecisionRequest(
            request_id(step, seat, GRAVEYARD),
            seat,
            GRAVEYARD,
            rule,
            f"Night {day}: you are dead; send one message that only the dead and the "
            "spectators read, never the living (an empty text passes).",
            (GRAVEYARD_FIELD,),
        )
        for seat in sorted(dead)
    )


def split(
    answers: Mapping[int, Payload], asked: Iterable[int]
) -> tuple[dict[int, Payload], dict[int, Payload]]:
    """A step's answers as (the graveyard's, the rest): the variant resolves the
    rest as if the dead had not been asked."""
    dead = set(asked)
    graveyard = {s: a for s, a in answers.items() if s in dead}
    return graveyard, {s: a for s, a in answers.items() if s not in dead}


def graveyard_messages(
    day: int, answers: Mapping[int, Payload], audience: Iterable[int]
) -> Iterator[GraveyardMessage]:
    """Every asked dead seat's message in seat order (a pass too: its fold marks
    the seat as answered), each seen by ``audience`` (the dead) alone."""
    seen = tuple(sorted(audience))
    for seat in sorted(answers):
        yield GraveyardMessage(day, seat, text_of(answers[seat]), seen)


def dead_at_nightfall(seats: Iterable[int], alive: Iterable[int]) -> tuple[int, ...]:
    """The seats the graveyard asks this night: every dealt seat not alive."""
    return tuple(sorted(set(seats) - set(alive)))


def with_graveyard(
    living: tuple[DecisionRequest, ...], asked: Iterable[int], step: int, rule: str, day: int
) -> tuple[DecisionRequest, ...]:
    """A step's requests of the living, with the asks of the dead still owing
    this night's graveyard answer after them (a step where nobody living is
    asked is then the graveyard's alone)."""
    dead = graveyard_requests(asked, step, rule, day)
    return (*living, *dead) if dead else living


def graveyard_first(
    answers: Mapping[int, Payload], asked: tuple[int, ...], day: int
) -> tuple[list[Event], Mapping[int, Payload]]:
    """The graveyard's messages of a step (none if the dead owe nothing) and the
    living's answers, which the variant resolves as if the dead were not asked."""
    if not asked:
        return [], answers
    dead, rest = split(answers, asked)
    return list(graveyard_messages(day, dead, asked)), rest
