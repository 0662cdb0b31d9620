"""Drives seeded games directly through the referee and captures, for chosen
requests, the prompt the seat would get. Shared by the prompt tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sandbox.agents.llm.prompt.render import RenderedPrompt, render_prompt
from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest, Text, draw_payload
from sandbox.core.variant import SeatView
from sandbox.games.registry import get_variant
from sandbox.testing.play import Players

TRIES = 64

# (game, request) -> whether to capture this request's prompt
Picker = Callable[[Game, DecisionRequest], bool]
# request -> the text to put in its Text fields (None: the random seat's filler)
Speaker = Callable[[DecisionRequest], str | None]


@dataclass
class Captured:
    """One rendered decision: what the seat saw, and what it was asked."""

    seat: int
    role: str
    view: SeatView
    request: DecisionRequest
    step: int
    events_before: int


def new_game(variant: str, seed: int, config: Mapping[str, Any] | None = None) -> Game:
    v = get_variant(variant)
    return Game.new(v, v.parse_config(dict(config or {})), seed)


def play(
    game: Game,
    rng: random.Random,
    *,
    pick: Picker | None = None,
    speak: Speaker | None = None,
    players: Players | None = None,
) -> list[Captured]:
    """Play to the end with uniform legal answers (or as ``players`` answer, e.g.
    the variant's bots); capture picked requests' views."""
    captured: list[Captured] = []
    answerer = players(game) if players is not None else None
    while not game.over:
        request = game.pending()[0]
        if pick is not None and pick(game, request):
            role = game.roles()[request.seat]
            captured.append(
                Captured(
                    request.seat,
                    role,
                    game.view(request.seat),
                    request,
                    game.step,
                    len(game.events),
                )
            )
        if answerer is not None:
            answer = answerer(game, request)
        else:
            answer = legal_answer(game, request, rng, speak)
        if answer is None:
            game.submit_fallback(request.id, "invalid")
        else:
            game.submit(request.id, answer)
    return captured


def legal_answer(
    game: Game, request: DecisionRequest, rng: random.Random, speak: Speaker | None
) -> dict[str, Any] | None:
    for _ in range(TRIES):
        payload = draw_payload(request, rng)
        text = speak(request) if speak is not None else None
        if text is not None:
            for f in request.fields:
                if isinstance(f, Text):
                    payload[f.name] = text[: f.max_chars]
        try:
            return game.validate(request.id, payload)
        except IllegalDecision:
            continue
    return None


def render(
    c: Captured, language: str = "en", belief_probe: bool = False, rules_text: str = ""
) -> RenderedPrompt:
    return render_prompt(
        c.view, c.request, language=language, rules_text=rules_text, belief_probe=belief_probe
    )


def full_text(prompt: RenderedPrompt) -> str:
    return "\n".join(m["content"] for m in prompt.messages)
