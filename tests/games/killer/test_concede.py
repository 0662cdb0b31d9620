"""KG-13 surrender, under both settings of the `concede` option.

Default `"either_side_down_to_one"` (the spec's words): once the police or the
killers are down to one living member, any living police player or killer may
concede, and the conceder's side loses. Option `"own_side_down_to_one"`: only a
member of the side that is down to one may concede. Civilians never may."""

from __future__ import annotations

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from tests.games.killer.helpers import (
    CIVILIANS,
    KILLER,
    KILLERS,
    POLICE,
    answer_step,
    new_game,
    night,
    talk_until_vote,
    vote,
)

EITHER = "either_side_down_to_one"
OWN = "own_side_down_to_one"
CONCEDE = {"speech": "We give up.", "concede": True}


def offered_today(game: Game, conceder: int | None = None) -> list[int]:
    """Pass through today's speeches; list the seats offered `concede`, and let
    `conceder` concede on its turn (which ends the game)."""
    offered = []
    while not game.over and game.pending()[0].decision in ("speech", "last_words"):
        request = game.pending()[0]
        if any(f.name == "concede" for f in request.fields):
            offered.append(request.seat)
        if request.seat == conceder and request.decision == "speech":
            game.submit(request.id, CONCEDE)
        else:
            answer_step(game, None)
    return offered


def killers_down_to_one(concede: str) -> Game:
    """Killers 1 and 2 are voted out on days 1 and 2; day 3 opens with killer 3 alone."""
    game = new_game(concede=concede)
    for day, out in enumerate((1, 2), start=1):
        night(game, kill=None)
        offered = offered_today(game)
        assert offered == [], f"day {day}: both sides have more than one member"
        vote(game, {4: out, 5: out})
        skip_last_words(game)
    night(game, kill=None)
    assert game.state.living("killer") == [3] and len(game.state.living("police")) == 3
    return game


def skip_last_words(game: Game) -> None:
    while game.pending()[0].decision == "last_words":
        answer_step(game, None)


@pytest.mark.rule("KG-13")
def test_concede_defaults_to_the_spec_reading() -> None:
    assert KILLER.parse_config({}).concede == EITHER  # type: ignore[attr-defined]


@pytest.mark.rule("KG-13")
def test_by_default_police_may_concede_when_the_killers_are_down_to_one() -> None:
    game = killers_down_to_one(EITHER)
    offered = offered_today(game, conceder=4)
    assert offered and set(offered) <= {3, *POLICE}  # never a civilian
    assert 4 in offered
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "surrender"
    assert game.state.conceded_side == "police"
    assert outcome.results[3] == "win"  # the lone killer's side wins
    assert {outcome.results[s] for s in (*POLICE, *CIVILIANS)} == {"lose"}


@pytest.mark.rule("KG-13")
def test_by_default_every_living_police_player_and_killer_is_offered() -> None:
    game = killers_down_to_one(EITHER)
    offered = offered_today(game)
    assert sorted(offered) == [3, *POLICE]
    assert not set(offered) & set(CIVILIANS)


@pytest.mark.rule("KG-13")
def test_own_side_option_offers_only_the_lone_killer() -> None:
    game = killers_down_to_one(OWN)
    offered = []
    while game.pending()[0].decision == "speech":
        request = game.pending()[0]
        names = [f.name for f in request.fields]
        if "concede" in names:
            offered.append(request.seat)
        if request.seat == 4:  # police: its own side still has three members
            assert names == ["speech", "claim", "accuse", "vouch"]  # no concede
            with pytest.raises(IllegalDecision, match="Unknown field"):
                game.submit(request.id, CONCEDE)
            with pytest.raises(IllegalDecision, match=r"\[KG-13\].*own side"):
                KILLER.rules.check(game.state, request, CONCEDE)
        answer_step(game, None)
    assert offered == [3]


@pytest.mark.rule("KG-13")
@pytest.mark.parametrize("concede", [EITHER, OWN])
def test_a_lone_killer_may_concede_and_the_police_side_wins(concede: str) -> None:
    game = killers_down_to_one(concede)
    offered_today(game, conceder=3)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "surrender"
    assert outcome.results[3] == "lose"
    assert {outcome.results[s] for s in (*POLICE, *CIVILIANS)} == {"win"}


@pytest.mark.rule("KG-13")
@pytest.mark.parametrize("concede", [EITHER, OWN])
def test_nobody_may_concede_while_both_sides_have_two_or_more(concede: str) -> None:
    game = new_game(concede=concede)
    night(game, kill=7)
    request = None
    while game.pending()[0].decision != "vote":
        request = game.pending()[0]
        assert [f.name for f in request.fields] == ["speech", "claim", "accuse", "vouch"]
        answer_step(game, None)
    assert request is not None and request.decision == "speech"
    with pytest.raises(IllegalDecision, match=r"\[KG-13\]"):
        KILLER.rules.check(game.state, request, CONCEDE)


@pytest.mark.rule("KG-13")
@pytest.mark.parametrize("concede", [EITHER, OWN])
def test_police_down_to_one(concede: str) -> None:
    """Police 4 and 5 die (night 1 kill, day 1 vote); on day 2 police 6 is alone."""
    game = new_game(concede=concede)
    night(game, kill=4)
    talk_until_vote(game)
    vote(game, {1: 5, 2: 5})
    skip_last_words(game)
    night(game, kill=None)
    offered = offered_today(game)
    expected = [6] if concede == OWN else [*KILLERS, 6]
    assert sorted(offered) == expected
