"""The baseline bot (sandbox/games/werewolf/bot.py): legal, deterministic for a
seed, and playing its role: werewolves never target each other, the seer accuses
a werewolf it found (in words and in the structured claims), the doctor protects
a claimed seer, villagers vote on the evidence."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.werewolf.bot import BaselineBot
from tests.games.werewolf.helpers import WW, new_game, night, play_bots


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"preset": "werewolf_arena"},
        {"wolf_chat": True, "last_words": True, "players": 12, "werewolves": 3},
    ],
)
def test_the_bot_plays_legal_games_to_an_end(rules: dict[str, Any]) -> None:
    endings: Counter[str] = Counter()
    for seed in range(25):
        game = Game.new(WW, WW.parse_config(rules), seed)
        answers = play_bots(game, seed)
        roles = game.roles()
        for seat, decision, payload in answers:
            target = payload.get("target")
            if decision == "kill":  # WW-7: never a packmate
                assert roles[target] != "werewolf"
            if decision == "vote" and roles[seat] == "werewolf" and target is not None:
                assert roles[target] != "werewolf"
        endings[game.outcome().reason] += 1  # type: ignore[union-attr]
    assert set(endings) <= {"werewolves_eliminated", "werewolf_parity", "day_limit"}
    assert endings["werewolves_eliminated"] and endings["werewolf_parity"]  # both teams win


def test_the_bot_is_deterministic_for_a_seed() -> None:
    runs = [play_bots(Game.new(WW, WW.parse_config({}), 5), 5) for _ in range(2)]
    assert runs[0] == runs[1]
    other = play_bots(Game.new(WW, WW.parse_config({}), 6), 6)
    assert other != runs[0]


def test_the_seer_accuses_a_werewolf_it_found_in_speech_and_claims() -> None:
    game = new_game()
    night(game, kill=6, protect=5, inspect=2)
    bot = BaselineBot(1)
    while game.pending()[0].seat != 3:
        game.submit_fallback(game.pending()[0].id, "test")
    request = game.pending()[0]
    answer = decide_now(bot, DecisionContext.for_request(game, request))
    assert answer.payload is not None
    assert answer.payload["claim"] == "seer" and list(answer.payload["accuse"]) == [2]
    assert "seat 2" in answer.payload["speech"] and "werewolf" in answer.payload["speech"]


def test_the_doctor_protects_a_claimed_seer_and_villagers_follow_the_claim() -> None:
    game = new_game(all_abstain="nobody")
    night(game, kill=6, protect=5, inspect=2)
    game.submit(game.pending()[0].id, {"speech": "", "claim": "seer", "accuse": [2]})  # seat 1
    while game.pending()[0].decision == "speech" and game.pending()[0].seat != 3:
        game.submit_fallback(game.pending()[0].id, "test")
    game.submit(
        game.pending()[0].id, {"speech": "I am the seer", "claim": "seer", "accuse": [2]}
    )  # seat 3
    while game.pending()[0].decision != "vote":
        game.submit_fallback(game.pending()[0].id, "test")
    votes = {}
    while not game.over and game.pending()[0].decision == "vote":
        request = game.pending()[0]
        answer = decide_now(BaselineBot(request.seat), DecisionContext.for_request(game, request))
        votes[request.seat] = answer.payload["target"]  # type: ignore[index]
        game.submit(request.id, answer.payload)  # type: ignore[arg-type]
    assert votes[7] == 2 and votes[8] == 2  # both seer claims accuse seat 2
    assert votes[1] != 2 and votes[2] != 1  # the werewolves spare each other
    request = next(r for r in game.pending() if r.decision == "protect")
    answer = decide_now(BaselineBot(4), DecisionContext.for_request(game, request))
    assert answer.payload == {"target": 3}  # the latest living seer claimant
