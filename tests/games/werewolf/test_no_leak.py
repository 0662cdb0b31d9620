"""The no-leak audit over 200 seeded random games (WW-4, WW-10, WW-16): a
werewolf's view holds its pack; the seer's its results; the doctor's its saves;
no view and no prompt (both styles, English, and Chinese every fourth game)
states another seat's role before a reveal. A leaky renderer is caught."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView
from sandbox.games.werewolf import events as ev
from sandbox.testing import find_leaks, forbidden_facts, prompt_text, view_text
from sandbox.testing.facts import said_facts
from sandbox.testing.play import Players
from tests.games.bots.harness import bot_players
from tests.prompts.harness import Captured, new_game, play

GAMES = 200
BOT_GAMES = 40  # games of the reference bots (issue 37)
SAMPLE = 0.03
ZH = {"werewolf": "狼人", "seer": "预言家", "doctor": "医生", "villager": "村民"}
ROLES = frozenset(ZH)
# The rulings that change what a seat learns rotate over the seeds.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"preset": "werewolf_arena"},
    {
        "wolf_chat": True,
        "graveyard_chat": True,  # WW-16 ruling: the dead's talk, audited with the rest
        "last_words": True,
        "seer_reveals": "team",
        "reveal_on_death": "team",
        "reveal_on_exile": "none",
        "wolf_vote": "sealed",
        "players": 11,
        "werewolves": 3,
    },
    # WW-12 open (OD-2: every accepted message is public; waits are the referee's)
    {"discussion": "open", "last_words": True, "messages_per_day": 12},
]


def _role(shown: str | None) -> str | None:
    """A revealed role, or the role a team implies (only werewolves are on theirs)."""
    return "werewolf" if shown == "werewolves" else shown if shown in ROLES else None


def role_facts(event: Event) -> Iterable[tuple[int, str]]:
    """(seat, role) facts an event states, read exactly."""
    if isinstance(event, ev.RoleCard):
        yield event.seat, event.role
    elif isinstance(event, ev.Pack):
        yield from ((s, "werewolf") for s in event.members)
    elif isinstance(event, ev.SeerResult) and _role(event.result):
        yield event.seat, str(_role(event.result))
    elif isinstance(event, ev.Dawn) and event.victim is not None and _role(event.revealed):
        yield event.victim, str(_role(event.revealed))
    elif isinstance(event, ev.Exiled) and _role(event.revealed):
        yield event.seat, str(_role(event.revealed))
    elif isinstance(event, ev.RolesRevealed):
        yield from ((int(s), r) for s, r in event.roles.items())


Renderer = Callable[[Game, Captured, str], str]


def _picker(seen: set[tuple[str, str]], sampler: random.Random) -> Callable[..., bool]:
    """The decisions of one game to audit: the first of each (decision, role),
    and a sample of the others."""

    def pick(game: Game, request: DecisionRequest) -> bool:
        key = (request.decision, game.roles()[request.seat])
        first = key not in seen
        seen.add(key)
        return first or sampler.random() < SAMPLE

    return pick


def honest(game: Game, c: Captured, language: str) -> str:
    return view_text(c.view) + "\n" + prompt_text(c.view, c.request, language)


def roles_appended(game: Game, c: Captured, language: str) -> str:
    """Leaky on purpose: the referee's role list (state, not the view)."""
    return (
        honest(game, c, language) + "\n" + json.dumps({str(s): r for s, r in game.roles().items()})
    )


def audit(
    renderer: Renderer, seeds: range, players: Players | None = None
) -> tuple[list[Any], set[tuple[str, str]], int]:
    leaks: list[Any] = []
    covered: set[tuple[str, str]] = set()
    rendered = 0
    sampler = random.Random(GAMES)
    for seed in seeds:
        pick = _picker(set(), sampler)
        game = new_game("werewolf", seed, CONFIGS[seed % len(CONFIGS)])
        for c in play(game, random.Random(seed), pick=pick, players=players):
            covered.add((c.request.decision, c.role))
            check_private_knowledge(game, c.view)
            hidden = forbidden_facts(game, c.seat, c.events_before, role_facts, learned=_heard)
            for language in ("en", "zh") if seed % 4 == 0 else ("en",):
                leaks += find_leaks(renderer(game, c, language), c.seat, hidden, ZH)
                rendered += 1
    return leaks, covered, rendered


def _heard(game: Game, seat: int, event: Event) -> Iterable[tuple[int, str]]:
    """A seat's speech is its word, which a hearer may repeat (bots' games)."""
    return said_facts(event.to_json()["data"], ROLES, ZH)


def check_private_knowledge(game: Game, view: SeatView) -> None:
    """WW-4/WW-8/WW-10: what each role's private view holds, and nothing else."""
    roles, private = game.roles(), view.private
    assert private["role"] == roles[view.seat]
    if private["role"] == "werewolf":
        assert private["pack"] == sorted(s for s, r in roles.items() if r == "werewolf")
    else:
        assert "pack" not in private and "fellow_werewolves" not in private
    if private["role"] == "seer":
        for check in private["inspections"]:
            assert check["result"] in (
                roles[check["seat"]],
                game.variant.research.side_of(roles[check["seat"]]),
            )
    if private["role"] == "doctor":
        protected = {(p["night"], p["seat"]) for p in private["protections"]}
        assert all((s["night"], s["seat"]) in protected for s in private["saves"])
    else:
        assert "saves" not in private
    if not game.over:
        assert view.public["roles"] == {}  # WW-20: announced only at the end


def test_ww4_ww16_no_view_or_prompt_states_a_role_its_seat_may_not_know() -> None:
    leaks, covered, rendered = audit(honest, range(GAMES))
    assert not leaks, leaks[:5]
    expected = {
        ("kill", "werewolf"),
        ("inspect", "seer"),
        ("protect", "doctor"),
        ("wolf_message", "werewolf"),
        ("bid", "villager"),
    }
    expected |= {(d, r) for d in ("speech", "vote", "message") for r in ROLES}
    assert expected <= covered, expected - covered
    assert rendered >= GAMES


@pytest.mark.parametrize("level", [3])
def test_no_view_or_prompt_of_a_deducing_bots_game_states_a_role_its_seat_may_not_know(
    level: int,
) -> None:
    """Issue 37: the same audit over games the reference bots play."""
    leaks, covered, rendered = audit(honest, range(BOT_GAMES), bot_players(level))
    assert not leaks, leaks[:5]
    assert {("speech", "werewolf"), ("vote", "villager"), ("inspect", "seer")} <= covered
    assert rendered >= BOT_GAMES


def test_ww4_the_audit_catches_a_leaky_renderer() -> None:
    leaks, _, _ = audit(roles_appended, range(3))
    assert leaks
