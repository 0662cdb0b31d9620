"""Determinism and replay for a seed (WW-2, WW-24: seeded draws), the incremental
view agreeing with build_view, and the project's conformance kit on several
rulings."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from sandbox.core.events import event_from_json
from sandbox.core.game import Game
from sandbox.testing import check_variant, legal_answer, play_random, replay
from tests.games.werewolf.helpers import WW

RULINGS: list[dict[str, Any]] = [
    {},
    {"preset": "werewolf_arena"},
    {
        "wolf_chat": True,
        "last_words": True,
        "wolf_vote": "sealed",
        "day_vote": "sealed",
        "first_speaker": "rotate",
        "players": 12,
        "werewolves": 3,
    },
    {
        "players": 6,
        "werewolves": 1,
        "seers": 0,
        "doctors": 0,
        "exile_rule": "majority",
        "tie": "nobody",
        "all_abstain": "nobody",
        "wolf_all_abstain": "nobody",
        "day_limit": 3,
    },
]


@pytest.mark.parametrize("rules", RULINGS)
def test_ww2_the_same_seed_and_decisions_replay_the_same_game(rules: dict[str, Any]) -> None:
    config = WW.parse_config(rules)
    for seed in range(5):
        game, log = play_random(WW, config, seed)
        again = replay(WW, config, seed, log)
        assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
        raw = json.loads(json.dumps([e.to_json() for e in game.events]))
        rebuilt = Game.from_events(WW, config, seed, [event_from_json(r) for r in raw])
        assert rebuilt.outcome() == game.outcome()
        assert all(rebuilt.view(s) == game.view(s) for s in game.seats)


def test_ww2_another_seed_gives_another_game() -> None:
    config = WW.parse_config({})
    games = {tuple(e.kind for e in play_random(WW, config, seed)[0].events) for seed in range(6)}
    assert len(games) > 1


@pytest.mark.parametrize("rules", RULINGS)
def test_the_view_fold_agrees_with_build_view_at_every_decision(rules: dict[str, Any]) -> None:
    config = WW.parse_config(rules)
    game = Game.new(WW, config, 11)
    rng = random.Random(11)
    checked = 0
    first = None
    while not game.over:
        request = game.pending()[0]
        view = game.view(request.seat)
        assert view == WW.build_view(request.seat, game.visible_events(request.seat))
        if first is None:
            first = (request.seat, len(game.events), view)
        checked += 1
        payload = legal_answer(game, request, rng)
        if payload is None:
            game.submit_fallback(request.id, "invalid")
        else:
            game.submit(request.id, payload)
    assert checked > 10 and first is not None
    seat, upto, early = first  # a view handed out is not changed by later folding
    assert early == WW.build_view(seat, [(i, e) for i, e in game.visible_events(seat) if i < upto])


@pytest.mark.parametrize("rules", RULINGS)
def test_the_conformance_kit_passes(rules: dict[str, Any]) -> None:
    report = check_variant("werewolf", rules, games=3, seed=21, languages=("en", "zh"))
    assert report.games == 3 and report.decisions > 0 and report.texts_audited > 0
    assert set(report.endings) <= {"werewolves_eliminated", "werewolf_parity", "day_limit"}
