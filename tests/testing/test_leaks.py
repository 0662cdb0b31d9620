"""The leak finder's forms of "seat t is <label>", each on a hand-built line: what
it must find, and a sentence boundary it must not read across (issue 37: the
audit over games of bots that speak)."""

from __future__ import annotations

import pytest

from sandbox.testing import find_leaks

FACT = {(1, "villager")}


@pytest.mark.parametrize(
    "line",
    [
        "Seat 1 is a villager",
        "seat 1: VILLAGER",
        '"1": "villager"',
        "villager team: seats 4, 1",
        "a villager among seats 4, 1",
    ],
)
def test_each_form_of_the_fact_is_found(line: str) -> None:
    assert find_leaks(line, 5, FACT) != [], line


@pytest.mark.parametrize(
    "line",
    [
        # the Werewolf level-3 bot's last words that the audit once flagged: the
        # villager is seat 7 (the speaker itself); seat 1 is only doubted
        'Seat 7 said: "Seat 7 was a villager. I do not believe seat 1 any more."',
        "A villager? I doubt seat 1",
        "Seat 1 spoke; the villager died",
    ],
)
def test_a_label_and_a_seat_in_two_sentences_state_nothing(line: str) -> None:
    assert find_leaks(line, 5, FACT) == [], line
