"""The no-leak audit: hundreds of seeded random games of each variant; the
prompts seats would get must never state a fact their seat may not know.

Runtime is kept small by rendering a random sample of the decisions of each
game, plus the first decision of each (decision, role) pair met in the run, so
every decision kind and every seat type is covered (asserted below). Chinese is rendered for
every fourth game. Two deliberately leaky renderers prove the audit bites.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from sandbox.agents.llm.beliefs import probe_request
from sandbox.agents.llm.prompt.render import RenderedPrompt, render_prompt
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.testing.play import Players
from tests.games.bots.harness import bot_players
from tests.prompts.audit import Leak, find_leaks, forbidden
from tests.prompts.harness import Captured, full_text, new_game, play

GAMES = 200
BOT_GAMES = {"four_factions": 6, "killer": 30}  # games of bots (issue 37)
SAMPLE = 0.02  # share of the other decisions rendered (about 3 per game)
EXPECTED = {
    "four_factions": {
        (d, r)
        for d in ("proofs", "accusation", "protection", "speak", "attack")
        for r in ("elite", "regular")
    }
    | {("loadout", "elite")},
    "killer": {("kill_opinion", "killer"), ("check_opinion", "police"), ("last_words", "any")}
    | {("team_message", "killer")}
    | {(d, r) for d in ("speech", "vote") for r in ("killer", "police", "civilian")},
}

# The rulings that change what a seat learns rotate over the seeds (FF-9,
# FF-12, FF-28; KG-4, KG-6, KG-1 player counts, the KG-3 and KG-14 talk rulings).
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "four_factions": [
        {},
        {"elite_knowledge": "own_faction", "defender_learns_attacker": True},
        {"reveal_faction_on_death": True, "weapon_assignment": "random", "graveyard_chat": True},
    ],
    "killer": [
        {},
        {"check_answer": "killer_or_not", "players": 15},
        {"reveal_role_on_death": True, "players": 11},
        # table talk (KG-3 ruling, KG-14 ruling): the killers' and the dead's messages
        {"killer_chat": True, "graveyard_chat": True, "players": 13},
    ],
}

Renderer = Callable[[Game, Captured, str], RenderedPrompt]


# A budget small enough that late prompts get the referee's history summary
# (the context budget), so the audit reads summaries too.
SUMMARY_BUDGET = 1200


def honest(game: Game, c: Captured, language: str) -> RenderedPrompt:
    """Both styles, the shared record and a summarized record at once: a fact
    leaked by any of them is found in the joined text."""
    full = render_prompt(c.view, c.request, language=language, belief_probe=True)
    compact = render_prompt(
        c.view, c.request, language=language, belief_probe=True, style="compact", history_items=5
    )
    budgeted = render_prompt(
        c.view, c.request, language=language, belief_probe=True, budget_tokens=SUMMARY_BUDGET
    )
    # the probe-only call a listener gets after a speech (probe_after_speech)
    probe = render_prompt(
        c.view, probe_request(c.seat, c.events_before), language=language, belief_probe=True
    )
    # the shared record: public events first, the seat's secrets after its card
    shared = render_prompt(
        c.view, c.request, language=language, style="compact", shared_record=True
    )
    messages = [
        *full.messages,
        *compact.messages,
        *budgeted.messages,
        *probe.messages,
        *shared.messages,
    ]
    return RenderedPrompt(messages, full.prefix_chars)


def seat_type(variant: str, c: Captured) -> tuple[str, str]:
    if c.request.decision == "last_words":
        return ("last_words", "any")  # a dead seat of any role
    return (c.request.decision, c.role.split("/")[-1])


@dataclass
class AuditResult:
    leaks: list[Leak] = field(default_factory=list)
    covered: set[tuple[str, str]] = field(default_factory=set)
    rendered: int = 0
    leaky_prompts: int = 0


def audit_games(
    variant: str, seeds: range, renderer: Renderer, players: Players | None = None
) -> AuditResult:
    result = AuditResult()
    seen: set[tuple[str, str]] = set()
    sampler = random.Random(GAMES)

    def pick(game: Game, request: DecisionRequest) -> bool:
        key = (request.decision, game.roles()[request.seat].split("/")[-1])
        first = key not in seen
        seen.add(key)
        return first or sampler.random() < SAMPLE

    for seed in seeds:
        game = new_game(variant, seed, CONFIGS[variant][seed % len(CONFIGS[variant])])
        for c in play(game, random.Random(seed), pick=pick, players=players):
            result.covered.add(seat_type(variant, c))
            facts, duels = forbidden(game, c.seat, c.events_before)
            for language in ("en", "zh") if seed % 4 == 0 else ("en",):
                text = full_text(renderer(game, c, language))
                found = find_leaks(text, c.seat, facts, duels)
                result.leaks += found
                result.rendered += 1
                result.leaky_prompts += bool(found)
    return result


@pytest.mark.parametrize("variant", ["four_factions", "killer"])
def test_no_prompt_states_a_fact_its_seat_may_not_know(variant: str) -> None:
    result = audit_games(variant, range(GAMES), honest)
    assert not result.leaks, result.leaks[:5]
    assert EXPECTED[variant] <= result.covered, EXPECTED[variant] - result.covered
    assert result.rendered >= GAMES


@pytest.mark.parametrize("level", [3])
@pytest.mark.parametrize("variant", ["four_factions", "killer"])
def test_no_prompt_of_a_deducing_bots_game_states_a_fact_its_seat_may_not_know(
    variant: str, level: int
) -> None:
    """Issue 37: the same audit over games the reference bots play (fewer: the
    bots' speeches make long prompts). What a seat heard another say it may
    repeat; nothing else about a role it cannot see may reach its prompt."""
    games = BOT_GAMES[variant]
    result = audit_games(variant, range(games), honest, bot_players(level))
    assert not result.leaks, result.leaks[:5]
    assert result.rendered >= games


def roles_appended(game: Game, c: Captured, language: str) -> RenderedPrompt:
    """Leaky on purpose: adds the referee's role list (view-independent state)."""
    prompt = honest(game, c, language)
    leak = json.dumps({str(s): r for s, r in game.roles().items()})
    user = prompt.messages[1]["content"] + f"\nNotes: {leak}\n"
    return RenderedPrompt(
        [prompt.messages[0], {"role": "user", "content": user}], prompt.prefix_chars
    )


def omniscient_view(game: Game, c: Captured, language: str) -> RenderedPrompt:
    """Leaky on purpose: the real templates, fed a view built from every event
    (the referee's), as a variant whose build_view ignored visibility would."""
    events = [(i, e) for i, e in game.visible_events(None) if i < c.events_before]
    view = game.variant.build_view(c.seat, events)
    return render_prompt(view, c.request, language=language)


@pytest.mark.parametrize("variant", ["four_factions", "killer"])
@pytest.mark.parametrize("renderer", [roles_appended, omniscient_view])
def test_audit_catches_a_leaky_renderer(variant: str, renderer: Renderer) -> None:
    result = audit_games(variant, range(3), renderer)
    assert result.rendered > 0
    # Most such prompts state a hidden fact in a seat-attributable form (an
    # omniscient FF view shown to an elite, who knows every regular's faction,
    # may only garble its own role card, which no audit can attribute).
    assert result.leaky_prompts >= 0.5 * result.rendered, (result.leaky_prompts, result.rendered)
