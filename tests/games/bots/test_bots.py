"""Baseline bots: always legal, deterministic, blind to what their seat cannot
see, and sensible in the situations the rules make clear-cut."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import AgentAnswer
from sandbox.core.variant import SeatView
from tests.games.bots.harness import answer, bots_for, context, play

KILLER_SIZES = (11, 13, 16)


@pytest.mark.parametrize("players", KILLER_SIZES)
def test_killer_bots_never_fall_back(players: int) -> None:
    for seed in range(4):
        game, fallbacks = play("killer", {"players": players}, seed)
        assert game.over
        assert fallbacks == 0


def test_four_factions_bots_never_fall_back() -> None:
    for seed in range(3):
        game, fallbacks = play("four_factions", {"day_limit": 8}, seed)
        assert game.over
        assert fallbacks == 0


@pytest.mark.parametrize(
    ("variant", "raw"), [("killer", {"players": 14}), ("four_factions", {"day_limit": 6})]
)
def test_same_seed_same_game(variant: str, raw: dict[str, Any]) -> None:
    first, _ = play(variant, raw, 11)
    second, _ = play(variant, raw, 11)
    assert [e.to_json() for _, e in first.visible_events(None)] == [
        e.to_json() for _, e in second.visible_events(None)
    ]


# ------------------------------------------------------------------ no leaks
def _first_request_view(
    variant: str, raw: dict[str, Any], seat: int, decision: str, level: int = 0
) -> tuple[SeatView, AgentAnswer]:
    """Play bots (at ``level``; 0: the baseline) until ``seat`` owes ``decision``;
    return its view and the answer its bot gives there."""

    def stop(request: DecisionRequest) -> bool:
        return request.seat == seat and request.decision == decision

    game, _ = play(variant, raw, 5, stop=stop, level=level)
    request = next(r for r in game.pending() if stop(r))
    bot = bots_for(variant, game, 5, level=level)[seat]  # a fresh bot: same seed in both games
    return game.view(seat), answer(bot, context(game, request))


def _killer_lineup(**roles: tuple[int, ...]) -> dict[str, Any]:
    seats = [{"seat": s, "role": role} for role, group in roles.items() for s in group]
    return {"players": 12, "seat": seats}


@pytest.mark.parametrize("level", [0, 3, 4])  # the baseline and the deducing bot (issue 37)
@pytest.mark.parametrize(
    ("decision", "mine", "theirs_a", "theirs_b"),
    [
        ("check_opinion", {"police": (1, 2, 3)}, {"killer": (4, 5, 6)}, {"killer": (9, 10, 11)}),
        ("kill_opinion", {"killer": (1, 2, 3)}, {"police": (4, 5, 6)}, {"police": (9, 10, 11)}),
    ],
)
def test_killer_decision_ignores_roles_the_seat_cannot_see(
    decision: str,
    mine: dict[str, tuple[int, ...]],
    theirs_a: dict[str, tuple[int, ...]],
    theirs_b: dict[str, tuple[int, ...]],
    level: int,
) -> None:
    game_a, game_b = _killer_lineup(**mine, **theirs_a), _killer_lineup(**mine, **theirs_b)
    view_a, answer_a = _first_request_view("killer", game_a, 1, decision, level)
    view_b, answer_b = _first_request_view("killer", game_b, 1, decision, level)
    assert view_a == view_b  # the hidden roles really are hidden from seat 1
    assert answer_a.payload == answer_b.payload


def _ff_seats(rock_seat: int, paper_seat: int) -> dict[str, Any]:
    seats: list[dict[str, Any]] = [
        {"seat": 1, "faction": "wolves", "elite": True},
        {"seat": rock_seat, "faction": "wolves", "elite": False, "weapon": "rock"},
        {"seat": paper_seat, "faction": "wolves", "elite": False, "weapon": "paper"},
    ]
    return {"day_limit": 6, "seat": seats}


@pytest.mark.parametrize("level", [0, 3, 4])
def test_ff_elite_attack_ignores_regulars_weapons_it_cannot_see(level: int) -> None:
    # FF-9: an elite knows regulars' factions, never their weapons. Swapping two
    # weapons must leave its view and its first attack unchanged.
    seats_a, seats_b = _ff_seats(2, 4), _ff_seats(4, 2)
    view_a, answer_a = _first_request_view("four_factions", seats_a, 1, "attack", level)
    view_b, answer_b = _first_request_view("four_factions", seats_b, 1, "attack", level)
    assert view_a == view_b
    assert answer_a.payload == answer_b.payload


# ------------------------------------------------------- sensible behaviours
def test_police_vote_for_a_killer_they_checked() -> None:
    seen: list[bool] = []

    def hook(request: DecisionRequest, view: SeatView, reply: AgentAnswer) -> None:
        if request.decision != "vote" or view.private.get("role") != "police":
            return
        assert reply.payload is not None
        found = {c["suspect"] for c in view.private["checks"] if c["answer"] == "killer"}
        candidates = set(view.public["vote_candidates"]) & found
        if candidates:
            seen.append(reply.payload["target"] in candidates)

    for seed in range(6):
        play("killer", {"players": 12}, seed, hook)
    assert seen, "no police seat ever had a checked killer on the ballot"
    assert all(seen)


def test_killers_never_kill_a_fellow_killer() -> None:
    kills = 0

    def hook(request: DecisionRequest, view: SeatView, reply: AgentAnswer) -> None:
        nonlocal kills
        if request.decision == "kill_opinion":
            assert reply.payload is not None
            kills += 1
            assert reply.payload["target"] not in [*view.private["fellow_killers"], view.seat]

    for seed in range(6):
        play("killer", {"players": 15}, seed, hook)
    assert kills > 0


def test_ff_bots_never_attack_known_faction_mates() -> None:
    attacks = 0

    def hook(request: DecisionRequest, view: SeatView, reply: AgentAnswer) -> None:
        nonlocal attacks
        if request.decision != "attack":
            return
        assert reply.payload is not None
        target, me = reply.payload["target"], view.private
        if target is None:
            return
        attacks += 1
        assert target != me["my_elite"]  # a regular never strikes its own elite
        assert me["known_factions"].get(str(target)) != me["faction"]  # nor an elite its own

    for seed in range(3):
        play("four_factions", {"day_limit": 7}, seed, hook)
    assert attacks > 0
