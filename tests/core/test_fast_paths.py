"""The referee's shortcuts change nothing a seat or a transcript can observe:
the lazily seeded step generator draws what derive_rng draws, a submit skips
the second check only for the untouched dict the dry run returned, option
membership still tells True from 1, and the random seat's disjoint lists keep
the rule KG-14 asks for."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sandbox.core.errors import IllegalDecision, UnknownRequest
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import (
    Choice,
    DecisionRequest,
    MultiChoice,
    Text,
    check_shape,
    draw_payload,
)
from sandbox.core.rng import LazyRandom, derive_rng
from tests.games.killer.helpers import new_game, night


def _draws(rng: random.Random) -> list[Any]:
    items = list(range(20))
    rng.shuffle(items)
    return [
        rng.choice("abcdefg"),
        rng.random(),
        rng.sample(range(100), 7),
        rng.randint(0, 10**30),
        rng.gauss(0.0, 1.0),
        items,
        rng.choices(range(5), k=6),
        rng.randbytes(9),
        rng.getrandbits(70),
    ]


@pytest.mark.parametrize("labels", [("step", 0), ("step", 41), ("setup",)])
def test_the_lazy_step_generator_draws_exactly_what_derive_rng_draws(
    labels: tuple[object, ...],
) -> None:
    assert _draws(LazyRandom(9, *labels)) == _draws(derive_rng(9, *labels))
    assert LazyRandom(9, *labels).getstate() == derive_rng(9, *labels).getstate()


def test_an_explicit_seed_or_state_replaces_the_deferred_one() -> None:
    lazy = LazyRandom(9, "step", 1)
    lazy.seed(123)
    assert _draws(lazy) == _draws(random.Random(123))
    lazy = LazyRandom(9, "step", 1)
    lazy.setstate(random.Random(5).getstate())
    assert _draws(lazy) == _draws(random.Random(5))


def _vote(game: Game) -> DecisionRequest:
    night(game, kill=7)
    while game.pending()[0].decision != "vote":
        game.submit_fallback(game.pending()[0].id, "test")
    return game.pending()[0]


def test_a_checked_answer_changed_before_submit_is_checked_again() -> None:
    game = new_game()
    request = _vote(game)
    answer = game.validate(request.id, {"target": None})
    answer["target"] = 99  # not a living other seat
    with pytest.raises(IllegalDecision):
        game.submit(request.id, answer)
    answer["target"] = None
    answer["note"] = "smuggled"  # an unknown field
    with pytest.raises(IllegalDecision):
        game.submit(request.id, answer)


def test_the_recorded_payload_is_a_copy_of_the_checked_answer() -> None:
    game = new_game()
    request = _vote(game)
    answer = game.validate(request.id, {"target": None})
    (made, *_) = game.submit(request.id, answer)
    answer["target"] = 99
    assert isinstance(made, DecisionMade) and dict(made.payload) == {"target": None}


def test_a_check_is_not_reused_once_the_state_moved_on() -> None:
    game = new_game()
    night(game, kill=7)
    first = game.pending()[0]
    stale = game.validate(first.id, {"speech": ""})
    game.submit(first.id, stale)
    with pytest.raises(UnknownRequest):
        game.submit(first.id, stale)


def test_option_membership_tells_true_from_one_and_leaves_out_unhashable_values() -> None:
    seats = Choice("target", (1, 2), "a seat", nullable=True)
    flag = Choice("concede", (False, True), "a flag")
    names = MultiChoice("accuse", (1, 2, 3), "seats", 3)
    request = DecisionRequest("0:1", 1, "x", "R-1", "pick", (seats, flag, names))
    assert check_shape(request, {"target": None, "concede": True, "accuse": [3, 1]}) == {
        "target": None,
        "concede": True,
        "accuse": (3, 1),
    }
    for bad in (
        {"target": True, "concede": True},
        {"target": 1, "concede": 1},
        {"target": [1], "concede": False},
        {"target": 1, "concede": False, "accuse": [True]},
        {"target": 1, "concede": False, "accuse": [[1]]},
    ):
        with pytest.raises(IllegalDecision):
            check_shape(request, bad)


def test_disjoint_draws_never_name_a_seat_twice_and_default_draws_are_unchanged() -> None:
    seats = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
    request = DecisionRequest(
        "0.1.speech",
        1,
        "speech",
        "KG-8",
        "speak",
        (
            Text("speech", "words"),
            MultiChoice("accuse", seats, "a", 10),
            MultiChoice("vouch", seats, "v", 10),
        ),
    )
    rng = random.Random(3)
    sizes = set()
    for _ in range(300):
        payload = draw_payload(request, rng, disjoint=True)
        assert not set(payload["accuse"]) & set(payload["vouch"])
        assert set(payload["accuse"]) | set(payload["vouch"]) <= set(seats)
        sizes.add((len(payload["accuse"]), len(payload["vouch"])))
    assert (0, 0) in sizes and any(a and v for a, v in sizes)  # both lists get seats
    plain, again = random.Random(4), random.Random(4)
    for _ in range(20):  # without ``disjoint``: the draws as they always were
        k = again.randint(0, 10)
        accuse = again.sample(list(seats), k)
        k = again.randint(0, 10)
        vouch = again.sample(list(seats), k)
        assert draw_payload(request, plain) == {
            "speech": "(seat 1 says nothing of note)",
            "accuse": accuse,
            "vouch": vouch,
        }
