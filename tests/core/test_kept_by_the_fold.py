"""What the folds keep so that the referee need not recompute it (living seats in
order, Killer's living count per role, each seat's other living seats) always
equals what it would compute from ``alive`` and ``roles``; the one step generator
re-armed per step draws what a fresh one would; and an answer's unknown field is
still the first error reported when its other fields are wrong too."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from sandbox.agents.simple import RandomAgent
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, Text, check_shape
from sandbox.core.rng import LazyRandom, derive_rng
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.registry import get_variant


def _assert_kept(state: Any) -> None:
    living = tuple(sorted(state.alive))
    assert state.living_seats == living
    for seat in (*living, 0):  # a seat that is not alive has every living seat as others
        assert state.others(seat) == tuple(s for s in living if s != seat)
    if hasattr(state, "living_per_role"):  # Killer
        counted = Counter(state.roles[s] for s in state.alive)
        assert {r: n for r, n in state.living_per_role.items() if n} == dict(counted)


@pytest.mark.parametrize("name", ["killer", "four_factions"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_what_the_fold_keeps_matches_the_seats_alive_after_every_answer(
    name: str, seed: int
) -> None:
    variant = get_variant(name)
    game = Game.new(variant, variant.parse_config({}), seed)
    agents = {s: RandomAgent(seed * 100 + s) for s in game.seats}
    deaths = 0
    while not game.over:
        for request in game.pending():
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game, request))
            before = len(game.state.alive)
            if answer.payload is None:
                game.submit_fallback(request.id, "test")
            else:
                game.submit(request.id, answer.payload)
            deaths += before - len(game.state.alive)
            _assert_kept(game.state)
    assert deaths > 0  # the games did exercise the bookkeeping of a death


def test_the_kept_tuple_is_given_back_until_a_seat_dies() -> None:
    variant = get_variant("killer")
    game = Game.new(variant, variant.parse_config({}), 4)
    first = game.state.others(3)
    assert game.state.others(3) is first  # options built from it share one tuple
    game.state.remove_living(5)
    assert game.state.others(3) is not first and 5 not in game.state.others(3)


@pytest.mark.parametrize("drawn_before", [False, True])
def test_a_re_armed_step_generator_draws_what_derive_rng_draws(drawn_before: bool) -> None:
    rng = LazyRandom(9, "step", 1)
    if drawn_before:
        rng.random()  # the previous step drew: its state must not leak into the next
    rng.defer(9, "step", 2)
    fresh = derive_rng(9, "step", 2)
    assert [rng.random() for _ in range(5)] == [fresh.random() for _ in range(5)]
    assert rng.gauss(0.0, 1.0) == fresh.gauss(0.0, 1.0)


def _killer_events(seed: int) -> list[dict[str, Any]]:
    variant = get_variant("killer")
    game = Game.new(variant, variant.parse_config({}), seed)
    rng = random.Random(seed)
    agents = {s: RandomAgent(rng.getrandbits(32)) for s in game.seats}
    while not game.over:
        for request in game.pending():
            ctx = DecisionContext.for_request(game, request)
            answer = decide_now(agents[request.seat], ctx)
            assert answer.payload is not None
            game.submit(request.id, answer.payload)
    return [e.to_json() for e in game.events]


def test_a_game_draws_the_same_as_with_an_eagerly_seeded_generator_per_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Killer draws among tied night opinions (KG-3/KG-4): the events are those of
    a game whose every step gets a generator seeded at once by derive_rng."""
    seeds = range(6)
    lazy = [_killer_events(seed) for seed in seeds]

    def eager(rng: LazyRandom, seed: int, *labels: object) -> None:
        rng.setstate(derive_rng(seed, *labels).getstate())

    monkeypatch.setattr(LazyRandom, "defer", eager)
    assert [_killer_events(seed) for seed in seeds] == lazy
    assert any(e["data"].get("tie_break") for events in lazy for e in events)


REQUEST = DecisionRequest(
    "1:1",
    1,
    "vote",
    "R-1",
    "vote",
    (Choice("target", (2, 3), "whom"), Text("speech", "say", 10)),
)


@pytest.mark.parametrize(
    "payload",
    [
        {"target": 9, "speech": "hi", "extra": 1},  # a bad value too
        {"speech": "hi", "extra": 1},  # a missing field too
        {"target": 2, "speech": "far too long a speech", "extra": 1},
        {"target": 2, "speech": "hi", "extra": 1},  # nothing else wrong
    ],
)
def test_an_unknown_field_is_the_error_reported_first(payload: dict[str, Any]) -> None:
    with pytest.raises(IllegalDecision, match=r"Unknown field\(s\) \['extra'\]"):
        check_shape(REQUEST, payload)


def test_a_valid_answer_comes_back_normalised_without_its_optional_fields() -> None:
    optional = Choice("claim", ("a", "b"), "claim", optional=True)
    request = DecisionRequest("1:1", 1, "speak", "R-2", "speak", (*REQUEST.fields, optional))
    assert check_shape(request, {"target": 3, "speech": "hi"}) == {"target": 3, "speech": "hi"}
    with pytest.raises(IllegalDecision, match="Missing field 'target'"):
        check_shape(request, {"speech": "hi"})
