"""Prompt rendering for LLM seats (placeholder until the jinja2 templates land).

Contract used by the LLM client: ``render_prompt`` turns a seat's view and the
open request into chat messages whose stable prefix (rules, role card, fixed
private facts) comes first, then the history, then the question.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView


@dataclass(frozen=True)
class RenderedPrompt:
    messages: list[dict[str, str]]
    prefix_chars: int


def render_prompt(
    view: SeatView,
    request: DecisionRequest,
    *,
    language: str = "en",
    rules_text: str = "",
    belief_probe: bool = False,
) -> RenderedPrompt:
    system = f"{rules_text}\nYou are seat {view.seat}. Private facts: {json.dumps(view.private)}"
    history = "\n".join(
        f"[{h.kind}] seat {h.speaker}: {json.dumps(h.speech)}"
        if h.speech is not None
        else f"[{h.kind}] {json.dumps(dict(h.facts))}"
        for h in view.history
    )
    user = f"{history}\n\nDecide: {request.instruction}\nAnswer with JSON only."
    return RenderedPrompt(
        [{"role": "system", "content": system}, {"role": "user", "content": user}], len(system)
    )


def render_repair(error_text: str, language: str = "en") -> str:
    return f"Your answer was rejected: {error_text}\nAnswer again with corrected JSON only."
