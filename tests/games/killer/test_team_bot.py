"""The killer bots' use of their night talk (issue 37; the KG-3 ruling
``killer_chat``, docs/rules-table-talk.md): a killer bot whose team already
stated a legal pick tonight names that seat in its opinion, so the team's
opinions agree instead of being split and drawn (KG-3: a tie is a seeded draw).
With the ruling off the bots play as before (the goldens pin that)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sandbox.agents.baseline import baseline_bot
from sandbox.core.events import TeamMessage
from sandbox.core.game import Game
from sandbox.core.requests import Choice
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.killer.bot import stated_pick
from sandbox.games.killer.events import Opinions
from sandbox.session.seating import seat_seed
from tests.games.killer.helpers import KILLER


@dataclass
class Night:
    """One night of a bots' game: the first team message, the legal kill
    targets (KG-3, KG-5) and the killers' opinions (KG-3)."""

    first: str | None
    targets: tuple[int, ...]
    opinions: dict[str, int | None]


def bots_game(seed: int, level: int, chat: bool = True) -> tuple[Game, list[Night]]:
    """A 12-seat game of bots at ``level`` (every seat), with the killers' talk
    on or off; each night's first team message, legal targets and opinions."""
    game = Game.new(KILLER, KILLER.parse_config({"players": 12, "killer_chat": chat}), seed)
    agents = {}
    for seat in game.seats:
        agents[seat] = baseline_bot(KILLER, seat_seed(seed, seat))
        if level:
            agents[seat].at_level(level)  # type: ignore[attr-defined]
    nights: list[Night] = []
    options: tuple[int, ...] = ()
    while not game.over:
        for request in game.pending():
            if request.decision == "kill_opinion":
                field = request.field("target")
                assert isinstance(field, Choice)
                options = tuple(o for o in field.options if isinstance(o, int))
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game, request))
            assert answer.payload is not None, answer.fallback_reason
            for event in game.submit(request.id, answer.payload):
                if isinstance(event, Opinions) and event.role == "killer":
                    said = [
                        e.text
                        for e in game.events
                        if isinstance(e, TeamMessage) and e.day == event.night
                    ]
                    killers = {s for s, r in game.roles().items() if r == "killer"}
                    targets = tuple(s for s in options if s not in killers)
                    nights.append(Night(said[0] if said else None, targets, dict(event.opinions)))
    return game, nights


def split(night: Night) -> bool:
    return len({v for v in night.opinions.values() if v is not None}) > 1


SEEDS = range(8)


@pytest.mark.parametrize("level", [0, 2, 4])
def test_kg3_with_the_killers_talk_the_bots_opinions_name_the_first_stated_legal_pick(
    level: int,
) -> None:
    """On every night whose first team message names a legal target, every
    killer bot's opinion names that seat (one seat, never a draw)."""
    followed = 0
    for seed in SEEDS:
        _, nights = bots_game(seed, level)
        for night in nights:
            assert night.first is not None  # the first living killer always speaks
            pick = stated_pick(night.first, night.targets)
            if pick is None:
                continue
            assert set(night.opinions.values()) == {pick}, (seed, night)
            followed += 1
    assert followed >= len(SEEDS)  # the property was tested on many nights


def test_kg3_the_talk_ends_the_split_opinions_the_bots_give_without_it() -> None:
    """Without the talk the killer bots' opinions are split on some nights (the
    draw then picks, KG-3); with it, never on these seeds."""
    off = [n for seed in SEEDS for n in bots_game(seed, 0, chat=False)[1]]
    on = [n for seed in SEEDS for n in bots_game(seed, 0)[1]]
    assert sum(map(split, off)) >= 3
    assert not [n for n in on if split(n)]


@pytest.mark.parametrize(
    ("text", "targets", "pick"),
    [
        ("I will name seat 7 tonight.", (5, 7, 9), 7),
        ("今晚我主张杀7号。", (5, 7, 9), 7),
        ("I back seat 9 too.", (5, 7, 9), 9),
        ("I have no target tonight.", (5, 7, 9), None),
        ("seat 2 please", (5, 7, 9), None),  # not a legal target: a mate, a dead or barred seat
        ("kill 5 or 9?", (5, 7, 9), None),  # two seats: no pick stated
        ("let's do 5", (5, 7, 9), 5),  # a bare number that is a legal target
    ],
)
def test_kg3_a_stated_pick_is_the_one_legal_target_a_message_names(
    text: str, targets: tuple[int, ...], pick: int | None
) -> None:
    assert stated_pick(text, targets) == pick
