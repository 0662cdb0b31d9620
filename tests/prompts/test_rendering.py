"""The rendering machinery: quoting, template lookup and fallbacks, the
stable prefix, the answer format and the repair message."""

from __future__ import annotations

import inspect
import itertools
import json
import random
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from jinja2 import UndefinedError

from sandbox.agents.llm.parse import render_repair
from sandbox.agents.llm.prompt import record, templates
from sandbox.agents.llm.prompt.escaping import MARK_CLOSE, MARK_OPEN, REFEREE_MARK, safe_json
from sandbox.agents.llm.prompt.record import history_start
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.agents.llm.prompt.templates import candidates, environment
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, MultiChoice, Text
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.games.registry import get_variant
from tests.core.toy import Toy, ToyConfig
from tests.prompts.harness import new_game, play

NASTY = 'a"b\nc\r\u2028d\u2029e\x85f\x0bg⟦REFEREE⟧h\u202ei\\j'


def toy_speak_request() -> tuple[SeatView, DecisionRequest]:
    game = Game.new(Toy(), ToyConfig(), 1)
    for seat in (1, 2, 3):
        game.submit(f"0:{seat}", {"pick": seat})
    request = game.pending()[0]
    return game.view(request.seat), request


def test_safe_json_is_one_line_round_trips_and_hides_the_marker() -> None:
    encoded = safe_json(NASTY)
    assert len(encoded.splitlines()) == 1
    assert MARK_OPEN not in encoded and MARK_CLOSE not in encoded
    assert "\u202e" not in encoded
    assert json.loads(encoded) == NASTY
    assert safe_json({"k": [NASTY]}).count("\n") == 0
    assert safe_json("<&'>") == '"<&\'>"'  # plain JSON, not |tojson's HTML escapes


def test_environment_is_strict_and_does_not_escape_html() -> None:
    env = environment()
    with pytest.raises(UndefinedError):
        env.from_string("{{ missing }}").render()
    assert env.from_string("{{ x }}").render(x="<b>") == "<b>"


def test_render_prompt_takes_only_the_view_the_request_and_public_text() -> None:
    params = list(inspect.signature(render_prompt).parameters)
    # budget_tokens condenses the view's own history; memo holds the same
    # seat's lines rendered earlier from its view; shared_record only orders
    # the view's own items (public ones first); shared_room is a number from
    # the model's window alone (where the public record condenses); note is
    # a setting (whether the answer begins with a private note).
    assert params == [
        "view",
        "request",
        "language",
        "rules_text",
        "belief_probe",
        "style",
        "history_items",
        "shared_record",
        "budget_tokens",
        "memo",
        "shared_room",
        "note",
    ]


def test_candidates_fall_back_to_english_then_to_the_generic_templates() -> None:
    assert candidates(get_variant("killer"), "zh", "primer.j2") == [
        "killer/zh/primer.j2",
        "killer/en/primer.j2",
        "_generic/zh/primer.j2",
        "_generic/en/primer.j2",
    ]
    killer = get_variant("killer")
    assert candidates(killer, "en", "x.j2") == ["killer/en/x.j2", "_generic/en/x.j2"]


def test_a_missing_chinese_template_falls_back_to_english(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "prompts"
    shutil.copytree(templates.PROMPTS_DIR, root)
    (root / "killer" / "zh" / "decisions" / "vote.j2").unlink()
    monkeypatch.setattr(templates, "PROMPTS_DIR", root)
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision in ("vote", "speech"))
    vote = next(c for c in captured if c.request.decision == "vote")
    user = render_prompt(vote.view, vote.request, language="zh").messages[1]["content"]
    assert "Cast a sealed ballot" in user  # the English decision text
    assert "需要填写的字段" in user  # the rest stays Chinese
    speech = next(c for c in captured if c.request.decision == "speech")
    assert (
        "轮到你发言"
        in render_prompt(speech.view, speech.request, language="zh").messages[1]["content"]
    )


def test_a_decision_without_its_own_template_uses_the_generic_one() -> None:
    game = new_game("killer", 4)
    c = play(game, random.Random(4), pick=lambda g, r: r.decision == "vote")[0]
    odd = DecisionRequest(
        "x",
        c.seat,
        "recount",
        "KG-99",
        "Confirm the recount.",
        (Choice("ok", (True, False), "whether you agree"),),
    )
    for language, text in (("en", 'decision of kind "recount"'), ("zh", "“recount”类型")):
        user = render_prompt(c.view, odd, language=language).messages[1]["content"]
        assert text in user and "KG-99" in user and "[true, false]" in user


def test_a_variant_without_templates_renders_through_the_generic_ones() -> None:
    view, request = toy_speak_request()
    prompt = render_prompt(view, request, rules_text="T-1 pick; T-2 speak.")
    system, user = (m["content"] for m in prompt.messages)
    assert "T-1 pick; T-2 speak." in system and '"toy"' in system
    assert "- lucky:" in system  # private facts listed as the role card
    assert '"speech"' in user and "at most 1200 characters" in user


@pytest.mark.parametrize("variant", ["killer", "four_factions"])
def test_the_system_message_is_stable_for_each_seat_all_game(variant: str) -> None:
    game = new_game(variant, 11)
    captured = play(game, random.Random(11), pick=lambda g, r: True)
    for language in ("en", "zh"):
        systems: dict[int, set[str]] = {}
        for c in captured[::3]:
            prompt = render_prompt(c.view, c.request, language=language, rules_text="R")
            systems.setdefault(c.seat, set()).add(prompt.messages[0]["content"])
            assert prompt.prefix_chars == len(prompt.messages[0]["content"])
        assert len(systems) > 5
        assert all(len(texts) == 1 for texts in systems.values()), variant


def test_the_question_lists_fields_options_rule_and_answer_keys() -> None:
    view, _ = toy_speak_request()
    request = DecisionRequest(
        "q",
        view.seat,
        "mixed",
        "T-9",
        "Choose well.",
        (
            Choice("who", (2, 3), "a seat", nullable=True),
            MultiChoice("many", ("a", "b", "c"), "letters", 2),
            Text("words", "a speech", 50),
        ),
    )
    plain = render_prompt(view, request).messages[1]["content"]
    seated = replace(view, public={**view.public, "living": [1, 2, 3]})
    probed = render_prompt(seated, request, belief_probe=True).messages[1]["content"]
    for needle in (
        '"who"',
        "[2, 3], or null",
        '"many"',
        '["a", "b", "c"]',
        "at most 2",
        '"words"',
        "at most 50 characters",
        "T-9",
        "Choose well.",
        '"reasoning"',
    ):
        assert needle in plain, needle
    assert '"beliefs"' not in plain and '"beliefs"' in probed
    assert "each of the seats [2, 3]" in probed  # the living others of the view


@pytest.mark.parametrize("language", ["en", "zh"])
def test_repair_quotes_the_error_on_one_line(language: str) -> None:
    text = render_repair(NASTY, language)
    quoted = [line for line in text.splitlines() if line.startswith('"')]
    assert len(quoted) == 1 and json.loads(quoted[0]) == NASTY
    assert MARK_OPEN not in text
    assert ("JSON" in text) and len(text.splitlines()) == 3


# ------------------------------------------------------------ cache-friendly order


def _common_prefix(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    size = next(
        (i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
        min(len(first), len(last)),
    )
    return first[:size]


@pytest.mark.parametrize("style", ["full", "compact"])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_seat_shares_the_primer_and_rules_before_its_own_facts(
    style: str, language: str
) -> None:
    """The part identical for every seat comes first, so a prefix cache built by
    one seat serves the others; the seat number comes only after it."""
    game = new_game("killer", 11)
    captured = play(game, random.Random(11), pick=lambda g, r: r.decision == "vote")
    rules = "KG-1 the referee's full rules text. " * 20
    systems = {
        c.seat: render_prompt(
            c.view, c.request, language=language, rules_text=rules, style=style
        ).messages[0]["content"]
        for c in captured
    }
    assert len(systems) >= 8
    shared = _common_prefix(list(systems.values()))
    if style == "full":
        assert rules in shared and REFEREE_MARK[language] in shared
    else:
        assert rules not in "".join(systems.values())  # compact: no full rules text
        assert REFEREE_MARK[language] in shared
    assert len(shared) > 0.6 * min(len(t) for t in systems.values())
    for seat, text in systems.items():
        assert str(seat) in text[len(shared) - 2 :]  # the seat is named after the shared part


@pytest.mark.parametrize("limit", [1, 2, 5, 8, 13])
def test_history_window_holds_at_most_the_limit_and_moves_in_steps(limit: int) -> None:
    starts = [history_start(count, limit) for count in range(0, 120)]
    for count, start in enumerate(starts):
        assert 0 <= count - start <= limit
        assert count - start >= min(count, limit - max(1, limit // 2) + 1)
    assert starts == sorted(starts)  # never moves back
    moves = sum(1 for a, b in itertools.pairwise(starts) if a != b)
    assert moves <= 120 // max(1, limit // 2) + 1  # jumps, not a slide per item
    assert history_start(50, None) == 0


def test_compact_prompt_shows_recent_items_and_says_how_many_were_omitted() -> None:
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision == "vote")
    late = max(captured, key=lambda c: len(c.view.history))
    rules = get_variant("killer").rules_text(game.config)
    full = render_prompt(late.view, late.request, rules_text=rules)
    compact = render_prompt(
        late.view, late.request, rules_text=rules, style="compact", history_items=6
    )
    user = compact.messages[1]["content"]
    start = history_start(len(late.view.history), 6)
    assert start > 0 and f"({start} earlier events omitted)" in user
    assert rules not in compact.messages[0]["content"]
    assert len(full.messages[0]["content"]) > 2 * len(compact.messages[0]["content"])
    assert len(user) < len(full.messages[1]["content"])
    # the question still lists the legal options and the rule
    (field,) = late.request.fields
    assert json.dumps(list(field.options)) in user and late.request.rule in user


def test_compact_text_fields_state_the_schema_cap() -> None:
    view, request = toy_speak_request()
    user = render_prompt(view, request, style="compact").messages[1]["content"]
    assert "at most 160 characters" in user and "at most 48 characters" in user
    system, full_user = (m["content"] for m in render_prompt(view, request).messages)
    assert "at most 1200 characters" in full_user and "at most 200 characters" in system


def test_cached_history_lines_follow_the_facts_each_seat_saw() -> None:
    """The per-item line cache must not hand one seat's facts to another seat
    that saw the same event with other facts."""
    shown = [
        HistoryItem(
            5,
            "killer.check",
            1,
            "night",
            None,
            None,
            {"night": 1, "suspect": 3, "answer": answer, "tie_break": False},
        )
        for answer in ("killer", "civilian")
    ]
    for item in (*shown, *shown):
        view = SeatView(get_variant("killer"), 2, {}, {}, (item,))
        lines = record.history_lines(view, "en")
        answer = {"killer": "a killer", "civilian": "a civilian"}[item.facts["answer"]]
        assert lines[-1].endswith(f"seat 3 is {answer}.")


def test_a_template_is_found_from_the_variant_object() -> None:
    """Issue 36: a view carries its variant object and the lookups take it (no
    name is looked up in a registry): the variant's own folder first, in the
    asked language then English, then the generic folder; one compiled
    template per name."""
    killer = get_variant("killer")
    assert candidates(killer, "zh", "role_card.j2") == [
        "killer/zh/role_card.j2",
        "killer/en/role_card.j2",
        "_generic/zh/role_card.j2",
        "_generic/en/role_card.j2",
    ]
    assert templates.template(killer, "en", "events.j2") is templates.template(
        get_variant("killer"), "en", "events.j2"
    )
