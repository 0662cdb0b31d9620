"""Graveyard talk in Four Factions (issue 38 item 7): the ``graveyard_chat``
ruling on FF-19 ("the dead choose nothing"), off by default. The dead may talk
among themselves and to spectators, never to the living. The state holds no
rulings, so at nightfall the referee announces the night's ask to the dead
(``talk.graveyard_opened``); they answer with the night's first step."""

from __future__ import annotations

import json
import random

import pytest

from sandbox.core.events import GraveyardMessage, GraveyardOpened
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.games.four_factions.events import DawnReport
from sandbox.games.registry import get_variant
from sandbox.testing import check_variant
from tests.prompts.harness import Captured, play

FF = get_variant("four_factions")


def random_game(seed: int, **rules: object) -> tuple[Game, list[Captured]]:
    game = Game.new(FF, FF.parse_config(dict(rules)), seed)

    def speak(request: DecisionRequest) -> str | None:
        return f"grave-{request.id}" if request.decision == "graveyard_message" else None

    return game, play(game, random.Random(seed), pick=lambda g, r: True, speak=speak)


def test_ff19_graveyard_chat_is_off_by_default() -> None:
    game, captured = random_game(2)
    assert not [e for e in game.events if isinstance(e, GraveyardOpened | GraveyardMessage)]
    assert not [c for c in captured if c.request.decision == "graveyard_message"]


@pytest.mark.parametrize("seed", range(3))
def test_ff19_the_dead_talk_once_a_night_and_only_the_dead_read_it(seed: int) -> None:
    game, captured = random_game(seed, graveyard_chat=True)
    announced: set[int] = set()
    opened = 0
    for i, event in enumerate(game.events):
        if isinstance(event, DawnReport):
            announced |= set(event.dead)
        if isinstance(event, GraveyardOpened):
            opened += 1
            assert set(event.audience) == announced  # the dead at nightfall
            asked = [e for e in game.events[i:] if isinstance(e, GraveyardMessage)]
            assert [e.seat for e in asked[: len(event.audience)]] == list(event.audience)
        if isinstance(event, GraveyardMessage):
            assert set(event.audience) <= announced  # never a living seat
    assert opened, "no night after a death: pick other seeds"
    asks = [c for c in captured if c.request.decision == "graveyard_message"]
    assert asks and all(c.request.rule == "FF-19" for c in asks)
    graves = [(i, e) for i, e in enumerate(game.events) if isinstance(e, GraveyardMessage)]
    for c in captured:  # no seat's view holds a graveyard message it may not read
        shown = json.dumps(c.view.to_json(), ensure_ascii=False)
        for i, e in graves:
            if i < c.events_before and c.seat not in e.audience:
                assert e.text not in shown, (c.seat, e)
    dead_view = game.view(graves[0][1].seat)
    assert [i for i in dead_view.history if i.kind == "talk.graveyard" and i.speech]


def test_ff19_the_conformance_kit_passes_with_graveyard_talk() -> None:
    """Visibility, folds, replay, determinism and the no-leak audit of the kit."""
    report = check_variant("four_factions", {"graveyard_chat": True}, games=2, seed=1)
    assert report.decisions > 0 and report.texts_audited > 0
