"""Run by an installed copy of the package (tests/packaging/test_wheel.py), from a
directory outside the repository: loads every shipped template, renders the
prompts of every decision of every built-in variant (both languages, both
styles), a decision with no template of its own, the repair message and the
browser page, and prints what it did as one JSON object.

Decisions that a variant's default rulings never ask (e.g. Werewolf's bids,
last words and pack messages) are met in games under its golden configs, which
the test writes beside this script as ``configs.json`` ({variant: [config]})."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from markupsafe import Markup

import sandbox
from sandbox.agents.llm.beliefs import PROBE_DECISION, probe_request
from sandbox.agents.llm.parse import render_repair
from sandbox.agents.llm.prompt import templates
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.agents.llm.prompt.templates import environment
from sandbox.agents.llm.settings import PromptStyle
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest
from sandbox.core.variant import SeatView
from sandbox.games.registry import get_variant, variant_names
from sandbox.testing import play_random
from sandbox.web.pages import render as render_page_template
from sandbox.web.words import ui

LANGUAGES = ("en", "zh")
STYLES: tuple[PromptStyle, ...] = ("full", "compact")
MAX_GAMES = 30
CONFIGS = Path("configs.json")


def configs_of(variant: str) -> list[dict[str, Any]]:
    """The default rulings, then the variant's golden configs (if given)."""
    given = json.loads(CONFIGS.read_text(encoding="utf-8")) if CONFIGS.is_file() else {}
    return [{}, *given.get(variant, [])]


def shipped(root: Traversable, prefix: str = "") -> Iterator[str]:
    """Every template under ``root``, as its name relative to it."""
    for entry in root.iterdir():
        if entry.is_dir():
            yield from shipped(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".j2"):
            yield f"{prefix}{entry.name}"


def own_decisions(variant: str) -> set[str]:
    folder = resources.files("sandbox.prompts").joinpath(variant, "en", "decisions")
    return {e.name[: -len(".j2")] for e in folder.iterdir() if e.name.endswith(".j2")}


def first_of_each_decision(variant: str) -> dict[str, tuple[SeatView, DecisionRequest]]:
    """One open request (with its seat's view) of every decision kind that has a
    template, from random games (seeds 0, 1, … under each of its configs) until
    all are met; the probe-only call's question (no game asks it) from the view
    of the first request met."""
    v = get_variant(variant)
    wanted = own_decisions(variant) - {PROBE_DECISION}
    found: dict[str, tuple[SeatView, DecisionRequest]] = {}

    def watch(game: Game, request: DecisionRequest) -> None:
        if request.decision not in found:
            found[request.decision] = (game.view(request.seat), request)

    for config in configs_of(variant):
        for seed in range(MAX_GAMES):
            if wanted <= set(found):
                break
            play_random(v, v.parse_config(config), seed, watch=watch)
    if found:
        view, _ = next(iter(found.values()))
        found[PROBE_DECISION] = (view, probe_request(view.seat, 0))
    return found


def render_all() -> dict[str, object]:
    rendered: dict[str, list[str]] = {}
    prompts = 0
    for variant in variant_names():
        captured = first_of_each_decision(variant)
        rendered[variant] = sorted(captured)
        some_view, some = next(iter(captured.values()))
        odd = DecisionRequest(
            "odd",
            some.seat,
            "recount",
            "X-1",
            "Confirm the recount.",
            (Choice("ok", (True, False), "whether you agree"),),
        )
        for view, request in [*captured.values(), (some_view, odd)]:
            for language in LANGUAGES:
                for style in STYLES:
                    prompt = render_prompt(
                        view,
                        request,
                        language=language,
                        style=style,
                        belief_probe=True,
                        history_items=5,
                    )
                    assert all(m["content"].strip() for m in prompt.messages)
                    prompts += 1
    repairs = [render_repair("error: not an option", language) for language in LANGUAGES]
    cache = environment().cache  # the templates loaded so far: those the renders used
    used = sorted({name for _, name in cache}) if cache is not None else []
    names = sorted(shipped(resources.files("sandbox.prompts")))
    for name in names:  # every shipped template loads and compiles
        environment().get_template(name)
    page = render_page_template(
        "page.html",
        t=ui("en"),
        language="en",
        token="t0k3n",
        mode="seat",
        title="Seat 3",
        boot={"mode": "seat", "t": dict(ui("en"))},
        view_html=Markup("<p>the view</p>"),
        form_html=Markup("<form></form>"),
        end_html=Markup(""),
    )
    return {
        "sandbox": sandbox.__file__,
        "prompts_root": str(templates.PROMPTS_DIR),
        "templates": names,
        "used": used,
        "decisions": rendered,
        "prompts": prompts,
        "repairs": all(repairs),
        "page": "<p>the view</p>" in page and "@@" not in page,
    }


if __name__ == "__main__":
    print(json.dumps(render_all()))
