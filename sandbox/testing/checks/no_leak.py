"""The ``no-leak`` check: neither a seat's view nor any prompt it is given
(both styles, each language asked for) states a fact about another seat that
the seat may not know. Sampled decisions only: rendering every prompt of a
game would make the kit too slow to run over many seeds."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView, Variant
from sandbox.testing.facts import (
    Fact,
    FactReader,
    forbidden_facts,
    plainly_stated_facts,
    role_words,
    stated_facts,
)
from sandbox.testing.leaks import find_leaks
from sandbox.testing.report import ConformanceReport, checking, fail


class PromptAudit:
    """Renders sampled decisions' prompts and looks for forbidden facts: the
    first decision of each (decision, role) pair, and a share of the others."""

    SAMPLE = 0.05

    def __init__(
        self,
        variant: Variant[Any],
        seed: int,
        languages: Sequence[str],
        facts: FactReader | None,
        aliases: dict[str, str],
        report: ConformanceReport,
    ) -> None:
        self.seed = seed
        self.languages = tuple(languages)
        self.facts = facts
        self.aliases = aliases
        self.report = report
        self.seen: set[tuple[str, str]] = set()
        self.rng = random.Random(f"no-leak {variant.name} {seed}")
        self.readers: tuple[FactReader, ...] = ()
        # The facts each event states, read once per reading (the game holds
        # every event, so ids stay unique while it lasts).
        self.read: tuple[dict[int, frozenset[Fact]], ...] = ({}, {})

    def _readers(self, game: Game) -> tuple[FactReader, FactReader]:
        """The readings for seen and unseen events, answering from a cache."""
        if not self.readers:
            if self.facts is not None:
                self.readers = (self.facts, self.facts)
            else:
                words = role_words(game.roles().values())
                self.readers = (stated_facts(words), plainly_stated_facts(words))
        return self._cached(0), self._cached(1)

    def _cached(self, which: int) -> FactReader:
        reader, cache = self.readers[which], self.read[which]

        def cached(event: Event) -> frozenset[Fact]:
            hit = cache.get(id(event))
            if hit is None:
                hit = cache[id(event)] = frozenset(reader(event))
            return hit

        return cached

    def __call__(self, game: Game, request: DecisionRequest, view: SeatView | None) -> None:
        role = game.roles().get(request.seat, "")
        key = (request.decision, role)
        if key in self.seen and self.rng.random() >= self.SAMPLE:
            return
        self.seen.add(key)
        with checking(game, self.seed, "no-leak"):
            seen, unseen = self._readers(game)
            hidden = forbidden_facts(game, request.seat, len(game.events), seen, unseen=unseen)
            view = view if view is not None else game.view(request.seat)
            # The view's raw data only under the generic reading, which counts
            # all of it as seen: data may pair seats and role words without
            # stating a fact (e.g. a seat's claim), which an exact reading of
            # facts does not cover; prompts say what the data means.
            texts = [view_text(view)] if self.facts is None else []
            texts += [prompt_text(view, request, lang) for lang in self.languages]
        for text in texts:
            leaks = find_leaks(text, request.seat, hidden, self.aliases)
            if leaks:
                shown = "; ".join(f"{x.fact} in {x.line.strip()[:120]!r}" for x in leaks[:3])
                raise fail(
                    game,
                    self.seed,
                    "no-leak",
                    f"seat {request.seat} ({request.decision}) is told: {shown}",
                )
            self.report.texts_audited += 1


def view_text(view: SeatView) -> str:
    """The view itself, one line per entry: what any renderer could show."""
    # The prompts' own JSON reading of facts; imported here, as in prompt_text.
    from sandbox.agents.llm.prompt.escaping import plain

    lines = [
        f"- {key}: {json.dumps(value, ensure_ascii=False)}"
        for part in (view.private, view.public)
        for key, value in plain(part).items()
    ]
    lines += [
        f"{item.kind} {json.dumps(plain(item.facts), ensure_ascii=False)}" for item in view.history
    ]
    return "\n".join(lines)


def prompt_text(view: SeatView, request: DecisionRequest, language: str = "en") -> str:
    """Every message of both prompt styles for one decision, as one text."""
    # Imported here: the prompt machinery (jinja2, templates) is only needed
    # by the audit, not by the rest of the kit.
    from sandbox.agents.llm.prompt import render_prompt

    full = render_prompt(view, request, language=language, belief_probe=True)
    compact = render_prompt(
        view, request, language=language, belief_probe=True, style="compact", history_items=5
    )
    return "\n".join(m["content"] for m in [*full.messages, *compact.messages])
