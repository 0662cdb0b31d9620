"""The optional Variant hooks that game files are checked against (role labels,
decision names and fields) must agree with what the games really do: a label
roles() never gives, or a decision the referee never asks, would make the
config checks refuse good files or pass bad ones."""

from __future__ import annotations

import random

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import draw_payload
from sandbox.games.registry import get_variant

SEEDS = (1, 2, 3)


def play_randomly(name: str, seed: int) -> tuple[Game, set[str], dict[str, set[str]]]:
    """A random game; the role labels dealt and the decisions (with fields) asked."""
    variant = get_variant(name)
    game = Game.new(variant, variant.parse_config({}), seed)
    rng = random.Random(seed)
    asked: dict[str, set[str]] = {}
    while not game.over:
        for request in game.pending():
            asked.setdefault(request.decision, set()).update(f.name for f in request.fields)
            try:
                game.submit(request.id, draw_payload(request, rng))
            except IllegalDecision:
                game.submit_fallback(request.id, "invalid")
    return game, set(game.roles().values()), asked


@pytest.mark.parametrize("name", ["killer", "four_factions"])
def test_role_labels_and_decision_fields_cover_real_games(name: str) -> None:
    variant = get_variant(name)
    config = variant.parse_config({})
    labels = set(variant.role_labels(config))
    declared = variant.research.decision_fields(config)
    seen_labels: set[str] = set()
    seen_decisions: dict[str, set[str]] = {}
    for seed in SEEDS:
        _, dealt, asked = play_randomly(name, seed)
        seen_labels |= dealt
        for decision, fields in asked.items():
            seen_decisions.setdefault(decision, set()).update(fields)
    assert seen_labels <= labels
    for decision, fields in seen_decisions.items():
        assert decision in declared, decision
        assert fields <= set(declared[decision]), (decision, fields)


def test_killer_labels_are_exactly_the_three_roles() -> None:
    killer = get_variant("killer")
    assert set(killer.role_labels(killer.parse_config({}))) == {"killer", "police", "civilian"}


def test_a_variant_without_the_hooks_reports_unknown() -> None:
    toy = get_variant("toy")
    config = toy.parse_config({})
    assert toy.role_labels(config) == () and dict(toy.research.decision_fields(config)) == {}
