"""Properties over random games (hypothesis: random rulings, seeds and seats; one
answer in five falls back): the game ends within the day limit (WW-21), the dead
never act (WW-16, last words aside), a protected seat survives the night (WW-9),
werewolves never target each other (WW-7), seer results are true (WW-10), ballots
come from the living only (WW-14), results follow the teams (WW-18..WW-20)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import draw_payload
from sandbox.games.werewolf import events as ev
from sandbox.games.werewolf.info import team_of
from tests.games.werewolf.helpers import WW

GAMES = 300


@st.composite
def rulings(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(6, 16))
    return {
        "players": players,
        "werewolves": draw(st.integers(1, (players - 1) // 2)),
        "seers": draw(st.integers(0, 1)),
        "doctors": draw(st.integers(0, 1)),
        "wolf_chat": draw(st.booleans()),
        "wolf_vote": draw(st.sampled_from(["sequential", "sealed", "one_wolf"])),
        "wolf_all_abstain": draw(st.sampled_from(["random", "nobody"])),
        "doctor_self_save": draw(st.booleans()),
        "doctor_repeat": draw(st.booleans()),
        "seer_repeat": draw(st.booleans()),
        "seer_reveals": draw(st.sampled_from(["role", "team"])),
        "reveal_on_death": draw(st.sampled_from(["role", "team", "none"])),
        "last_words": draw(st.booleans()),
        "discussion": draw(st.sampled_from(["round_robin", "bidding"])),
        "rounds": draw(st.integers(1, 2)),
        "first_speaker": draw(st.sampled_from(["random", "rotate", "fixed"])),
        "turns": draw(st.integers(1, 4)),
        "self_vote": draw(st.booleans()),
        "abstain": draw(st.booleans()),
        "day_vote": draw(st.sampled_from(["sequential", "sealed"])),
        "exile_rule": draw(st.sampled_from(["plurality", "majority"])),
        "tie": draw(st.sampled_from(["random", "nobody"])),
        "all_abstain": draw(st.sampled_from(["random", "nobody"])),
        "reveal_on_exile": draw(st.sampled_from(["role", "team", "none"])),
        "day_limit": draw(st.integers(1, 6)),
    }


def play(rules: dict[str, Any], seed: int) -> Game:
    game = Game.new(WW, WW.parse_config(rules), seed)
    rng = random.Random(seed)
    for _ in range(20_000):
        if game.over:
            return game
        request = game.pending()[0]
        if rng.random() < 0.2:
            game.submit_fallback(request.id, "test")
            continue
        try:
            game.submit(request.id, draw_payload(request, rng, disjoint=True))
        except IllegalDecision:
            game.submit_fallback(request.id, "invalid")
    raise AssertionError("the game did not end")


def check(game: Game) -> None:
    roles = game.roles()
    alive = set(game.seats)
    last_words: set[int] = set()
    protected: int | None = None
    for event in game.events:
        if isinstance(event, DecisionMade):
            if event.decision == "last_words":
                assert event.seat in last_words and event.seat not in alive
            else:
                assert event.seat in alive, f"dead seat {event.seat} made {event.decision}"
        elif isinstance(event, ev.NightFell):
            protected = None
        elif isinstance(event, ev.Protection):
            protected = event.target
        elif isinstance(event, ev.KillChosen) and event.target is not None:
            assert roles[event.target] != "werewolf"
        elif isinstance(event, ev.SeerResult):
            assert event.result in (roles[event.seat], team_of(roles[event.seat]))
        elif isinstance(event, ev.Dawn) and event.victim is not None:
            assert event.victim != protected  # a protected seat survives the night
            alive.discard(event.victim)
        elif isinstance(event, ev.Exiled):
            alive.discard(event.seat)
        elif isinstance(event, ev.LastWordsTurn):
            last_words.add(event.seat)
        elif isinstance(event, ev.Ballots):
            assert {int(s) for s in event.ballots} <= alive
    outcome = game.outcome()
    assert outcome is not None
    assert game.state.day <= game.state.rulings["day_limit"]  # WW-21
    wolves = sum(1 for s in alive if roles[s] == "werewolf")
    others = len(alive) - wolves
    expected = {
        "werewolves_eliminated": ("lose", "win"),
        "werewolf_parity": ("win", "lose"),
        "day_limit": ("draw", "draw"),
    }[outcome.reason]
    if outcome.reason == "werewolves_eliminated":
        assert wolves == 0
    elif outcome.reason == "werewolf_parity":
        assert wolves > 0 and others <= wolves
    for seat, result in outcome.results.items():
        assert result == expected[0 if roles[seat] == "werewolf" else 1]


@settings(max_examples=GAMES, deadline=None)
@given(rules=rulings(), seed=st.integers(0, 2**31 - 1))
def test_ww9_ww16_ww21_random_games_keep_the_rules(rules: dict[str, Any], seed: int) -> None:
    check(play(rules, seed))
