"""The space of role assignments: counted, listed and drawn as a brute force
over every ordering of the deck says."""

from __future__ import annotations

import itertools
import random
from collections import Counter as Tally

import pytest

from sandbox.deduction.space import Counter, Space, count, every


def brute(space: Space) -> set[tuple[str, ...]]:
    deck = [r for r, n in sorted(space.deck.items()) for _ in range(n)]
    return {p for p in itertools.permutations(deck) if space.allows(p)}


SPACES = [
    Space((1, 2, 3), {"a": 1, "b": 2}),
    Space((1, 2, 3, 4), {"a": 1, "b": 1, "c": 2}, {1: frozenset({"c"})}),
    Space(
        (1, 2, 3, 4, 5), {"a": 2, "b": 1, "c": 2}, {2: frozenset({"b", "c"}), 4: frozenset({"a"})}
    ),
    Space((3, 5, 9), {"a": 0, "b": 3}),
]


@pytest.mark.parametrize("space", SPACES)
def test_count_and_list_agree_with_brute_force(space: Space) -> None:
    assert count(space) == len(brute(space))
    listed = every(space)
    assert len(listed) == len(set(listed)) and set(listed) == brute(space)


def test_a_contradiction_has_no_assignment() -> None:
    space = Space((1, 2), {"a": 1, "b": 1}, {1: frozenset({"a"}), 2: frozenset({"a"})})
    assert count(space) == 0 and every(space) == []


def test_draws_are_uniform() -> None:
    space = SPACES[1]  # 6 assignments
    counter = Counter(space)
    rng = random.Random(7)
    tally = Tally(counter.draw(rng) for _ in range(3000))
    assert set(tally) == brute(space)
    assert all(400 < n < 600 for n in tally.values()), tally


def test_the_sizes_the_exact_bound_was_chosen_for() -> None:
    # a civilian at a 12-seat Killer table: 11 unknown seats, 3 + 3 + 5 cards
    killer = Space(tuple(range(1, 13)), {"k": 3, "p": 3, "c": 6}, {1: frozenset({"c"})})
    assert count(killer) == 9240
    # a villager at an 8-seat Werewolf table
    werewolf = Space(tuple(range(1, 9)), {"w": 2, "s": 1, "d": 1, "v": 4}, {1: frozenset({"v"})})
    assert count(werewolf) == 420


def test_a_deck_that_does_not_fit_the_seats_is_refused() -> None:
    with pytest.raises(ValueError, match="deals"):
        Space((1, 2), {"a": 3})
