"""``sandbox.agents.observation``: a seat's observation as data.

Hand-built requests with a known referee give the moves and masks exactly;
real games of each variant check that every observation is JSON, that every
move is one the referee accepts, and that the prompt is the LLM seat's own."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.observation import field_masks, legal_moves, observe
from sandbox.agents.simple import RandomAgent
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.core.seat import DecisionContext, decide_now
from sandbox.games.registry import get_variant

VOTE = DecisionRequest(
    "3.2.vote",
    2,
    "vote",
    "XX-1",
    "Vote.",
    (Choice("target", (1, 3, 4), "who", nullable=True), Text("speech", "why")),
)
CLAIM = DecisionRequest(
    "4.1.speech",
    1,
    "speech",
    "XX-2",
    "Speak.",
    (
        Choice("claim", ("none", "police"), "claim"),
        Choice("concede", (False, True), "concede"),
        MultiChoice("accuse", (2, 3, 4), "accused", 2),
    ),
)


def no_three(payload: object) -> Mapping[str, Any]:
    """A referee that refuses seat 3 as a target and in an accusation, and a
    police claim together with a concession."""
    assert isinstance(payload, dict)
    if payload.get("target") == 3 or 3 in payload.get("accuse", ()):
        raise IllegalDecision("XX-1", "not 3")
    if payload.get("claim") == "police" and payload.get("concede") is True:
        raise IllegalDecision("XX-2", "no")
    return payload


def test_moves_are_the_accepted_choice_combinations_with_empty_text() -> None:
    moves, complete = legal_moves(VOTE, no_three)
    assert moves == [
        {"speech": "", "target": 1},
        {"speech": "", "target": 4},
        {"speech": "", "target": None},
    ]
    assert complete
    assert field_masks(VOTE, moves, no_three) == {"target": [True, False, True, True]}


def test_masks_of_several_choice_fields_and_a_list_field() -> None:
    moves, _ = legal_moves(CLAIM, no_three)
    assert moves == [
        {"accuse": [], "claim": "none", "concede": False},
        {"accuse": [], "claim": "none", "concede": True},
        {"accuse": [], "claim": "police", "concede": False},
    ]
    masks = field_masks(CLAIM, moves, no_three)
    # concede=False is an int 0 to Python: the bool options are told apart by type
    assert masks == {
        "claim": [True, True],
        "concede": [True, True],
        "accuse": [True, False, True],
    }


def test_no_legal_move_gives_all_false_masks() -> None:
    def refuse(payload: object) -> Mapping[str, Any]:
        raise IllegalDecision("XX-1", "never")

    moves, _ = legal_moves(CLAIM, refuse)
    assert moves == []
    assert field_masks(CLAIM, moves, refuse) == {
        "claim": [False, False],
        "concede": [False, False],
        "accuse": [False, False, False],
    }


def _contexts(variant: str, seed: int, limit: int) -> list[tuple[Game, DecisionContext]]:
    """The first ``limit`` decisions of a game of random seats, each observed
    before it is answered (the game goes on after each)."""
    game = Game.new(get_variant(variant), get_variant(variant).parse_config({}), seed)
    agents = {s: RandomAgent(seed * 100 + s) for s in game.seats}
    seen: list[tuple[Game, DecisionContext]] = []
    while not game.over and len(seen) < limit:
        for request in game.pending():
            ctx = DecisionContext.for_request(game, request)
            seen.append((game, ctx))
            _check(ctx)
            answer = decide_now(agents[request.seat], ctx)
            if answer.payload is None:
                game.submit_fallback(request.id, "invalid")
            else:
                game.submit(request.id, answer.payload)
    return seen


def _check(ctx: DecisionContext) -> None:
    obs = observe(ctx)
    assert json.loads(json.dumps(obs)) == obs  # plain JSON, nothing lost
    assert obs["seat"] == ctx.seat and obs["request"]["id"] == ctx.request.id
    assert obs["view"] == ctx.view.to_json()
    assert obs["moves"], f"no legal move for {ctx.request.decision}"
    for move in obs["moves"]:
        ctx.validate(move)  # the referee accepts every move as it stands
    fields = {f["name"]: f for f in obs["request"]["fields"]}
    for name, mask in obs["masks"].items():
        assert len(mask) == len(fields[name]["options"]) and any(mask)
    assert set(obs["request"]["schema"]["properties"]) == set(fields)


@pytest.mark.parametrize("variant", ["killer", "four_factions", "werewolf"])
def test_observations_of_real_games_are_json_and_their_moves_are_legal(variant: str) -> None:
    seen = _contexts(variant, 7, 60)
    kinds = {ctx.request.decision for _, ctx in seen}
    assert len(kinds) >= 2  # more than one kind of decision was observed


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_prompt_is_the_one_an_llm_seat_is_given(language: str) -> None:
    game = Game.new(get_variant("killer"), get_variant("killer").parse_config({}), 5)
    rng = random.Random(1)
    for _ in range(12):  # some history first, so the record is not empty
        for request in game.pending():
            if rng.random() < 0.5:
                game.submit_fallback(request.id, "invalid")
            else:
                game.submit(request.id, legal_moves(request, _dry(game, request))[0][0])
    request = game.pending()[0]
    ctx = DecisionContext.for_request(game, request)
    seat = LLMAgent("fake/legal-random", language=language)
    expected = seat._render(ctx, None).messages
    obs = observe(ctx, language)
    assert obs["language"] == language
    assert [obs["prompt"]["system"], obs["prompt"]["user"]] == [m["content"] for m in expected]
    assert obs["prompt"]["user"].count("\n") > 5


def _dry(game: Game, request: DecisionRequest) -> Any:
    return lambda payload: game.validate(request.id, payload)
