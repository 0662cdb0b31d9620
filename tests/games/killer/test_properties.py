"""Killer-specific properties over 1000 random games (random seats, random
player counts and rulings): the dead never act or vote; group secrets reach
their group alone; every ballot is public after the vote; the outcome agrees
with KG-12."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.core.errors import IllegalDecision
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import draw_payload
from sandbox.games.killer.events import (
    Ballots,
    CheckResult,
    Dawn,
    KillChosen,
    Opinions,
    PhaseStarted,
    TeamList,
    VotedOut,
)
from tests.games.killer.helpers import KILLER

GAMES = 1000

rulings = st.fixed_dictionaries(
    {
        "players": st.integers(11, 16),
        "check_answer": st.sampled_from(["identity", "killer_or_not"]),
        "reveal_role_on_death": st.booleans(),
        "day_limit": st.integers(1, 8),
        "previous_first_victim": st.one_of(st.none(), st.integers(1, 11)),
        "concede": st.sampled_from(["either_side_down_to_one", "own_side_down_to_one"]),
    }
)


def play_random(rules: dict[str, Any], seed: int) -> Game:
    """Uniform legal play; one seat in five falls back instead (exercising fallbacks)."""
    game = Game.new(KILLER, KILLER.parse_config(rules), seed)
    rng = random.Random(seed)
    while not game.over:
        for request in game.pending():
            if rng.random() < 0.2:
                game.submit_fallback(request.id, "test")
                continue
            payload = draw_payload(request, rng)
            if "concede" in payload:
                payload["concede"] = rng.random() < 0.1  # conceding is rare
            try:
                game.submit(request.id, payload)
            except IllegalDecision:
                game.submit_fallback(request.id, "invalid")
    return game


def check_dead_never_act(game: Game) -> None:
    """KG-14: only living seats decide, except the dead's own last words."""
    alive = set(game.seats)
    last_words_for: set[int] = set()
    for event in game.events:
        if isinstance(event, DecisionMade):
            if event.decision == "last_words":
                assert event.seat in last_words_for and event.seat not in alive
            else:
                assert event.seat in alive, f"dead seat {event.seat} made {event.decision}"
        elif isinstance(event, Dawn) and event.victim is not None:
            alive.discard(event.victim)
        elif isinstance(event, VotedOut):
            alive.discard(event.seat)
        elif isinstance(event, PhaseStarted) and event.phase == "last_words":
            last_words_for.add(event.order[0])
        elif isinstance(event, Ballots):
            voters = {int(s) for s in event.ballots}
            assert voters == alive
            assert all(t is None or t in alive for t in event.ballots.values())


def check_group_secrets(game: Game) -> None:
    roles = game.roles()
    for event in game.events:
        if isinstance(event, Opinions | KillChosen | CheckResult | TeamList):
            group = "police" if isinstance(event, CheckResult) else getattr(event, "role", "killer")
            vis = event.visibility()
            assert vis.scope == "seats" and vis.seats
            assert all(roles[s] == group for s in vis.seats)
    for seat in (1, game.seats[-1]):  # views are costly to build: two seats per game
        private = game.view(seat).private
        assert private["role"] == roles[seat]
        assert ("checks" in private) == (roles[seat] == "police")
        assert ("kills" in private) == (roles[seat] == "killer")


def check_ballots_public(game: Game) -> None:
    """KG-9: every vote step's ballots are announced publicly, each ballot included."""
    votes: Counter[str] = Counter()
    for event in game.events:
        if isinstance(event, DecisionMade) and event.decision == "vote":
            votes[event.request_id.split(".")[0]] += 1
    ballots = [e for e in game.events if isinstance(e, Ballots)]
    assert len(ballots) == len(votes)
    assert sorted(len(b.ballots) for b in ballots) == sorted(votes.values())
    assert all(b.visibility().scope == "public" for b in ballots)


def check_outcome(game: Game) -> None:
    outcome = game.outcome()
    assert outcome is not None
    roles, alive = game.roles(), game.state.alive
    living = Counter(roles[s] for s in alive)
    results = {
        role: {outcome.results[s] for s in game.seats if roles[s] == role}
        for role in ("killer", "police", "civilian")
    }
    assert all(len(r) == 1 for r in results.values())
    assert results["civilian"] == results["police"]  # civilians share the police's result
    expected = {
        "killers_eliminated": ("lose", "win"),
        "police_eliminated": ("win", "lose"),
        "civilians_eliminated": ("draw", "draw"),
        "forced_draw": ("draw", "draw"),
        "day_limit": ("draw", "draw"),
    }
    if outcome.reason == "surrender":
        side = game.state.conceded_side
        assert side in ("killer", "police")  # KG-13: never a civilian
        if game.state.concede == "own_side_down_to_one":
            assert living[side] == 1
        else:  # the default: either side down to one
            assert 1 in (living["killer"], living["police"])
        expected["surrender"] = ("lose", "win") if side == "killer" else ("win", "lose")
    assert (results["killer"].pop(), results["police"].pop()) == expected[outcome.reason]
    if outcome.reason == "killers_eliminated":
        assert living["killer"] == 0 and living["police"] > 0 and living["civilian"] > 0
    if outcome.reason == "police_eliminated":
        assert living["police"] == 0 and living["killer"] > 0
    if outcome.reason == "civilians_eliminated":
        assert living["civilian"] == 0
    if outcome.reason == "day_limit":
        assert game.state.day == game.config.day_limit  # type: ignore[attr-defined]
        assert min(living.values()) > 0 and len(living) == 3


@pytest.mark.rule("KG-2", "KG-3", "KG-4", "KG-9", "KG-12", "KG-13", "KG-14")
@settings(max_examples=GAMES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulings, seed=st.integers(0, 2**32))
def test_random_games_keep_the_killer_invariants(rules: dict[str, Any], seed: int) -> None:
    game = play_random(rules, seed)
    check_dead_never_act(game)
    check_ballots_public(game)
    check_outcome(game)
    check_group_secrets(game)
