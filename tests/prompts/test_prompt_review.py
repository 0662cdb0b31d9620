"""Findings of the second prompt review (review2: B6 and "Prompt review"), each
checked on prompts rendered from seeded games of both variants."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from sandbox.agents.llm.prompt.record import history_lines
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.core.variant import HistoryItem
from sandbox.games.registry import get_variant
from tests.prompts.harness import Captured, new_game, play
from tests.prompts.test_golden import KINDS, SEED, first_of_each

STYLES = ("full", "compact")
# A run of at least four English words (letters, apostrophes and hyphens).
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:[\s,;:()/.]+[A-Za-z][A-Za-z'-]*){3,}")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
SPEECH_LINE = re.compile(r"^座位 \d+ 说 .*$", re.MULTILINE)


@pytest.fixture(scope="module")
def captures() -> dict[str, dict[tuple[str, str], Captured]]:
    return {variant: first_of_each(variant) for variant in KINDS}


def every_case(
    captures: dict[str, dict[tuple[str, str], Captured]],
) -> list[tuple[str, Captured]]:
    return [(v, c) for v, found in captures.items() for c in found.values()]


def rules(variant: str, language: str) -> str:
    v = get_variant(variant)
    return v.rules_text(v.parse_config({}), language)


def english_runs(text: str) -> list[str]:
    """Runs of English outside quoted speeches, JSON strings (keys, enum values)
    and the schema's literal values."""
    text = SPEECH_LINE.sub("", text)
    text = QUOTED.sub("", text)
    return ENGLISH_RUN.findall(text)


@pytest.mark.parametrize("style", STYLES)
def test_chinese_prompts_carry_no_english_engine_text(
    captures: dict[str, dict[tuple[str, str], Captured]], style: str
) -> None:
    """B6: every decision kind of both games, in Chinese, has no English run."""
    seen: set[tuple[str, str]] = set()
    for variant, c in every_case(captures):
        prompt = render_prompt(
            c.view,
            c.request,
            language="zh",
            style=style,  # type: ignore[arg-type]
            rules_text=rules(variant, "zh"),
            belief_probe=True,
        )
        text = "\n".join(m["content"] for m in prompt.messages)
        assert english_runs(text) == [], (variant, c.request.decision)
        seen.add((variant, c.request.decision))
    assert seen == {(v, d) for v, kinds in KINDS.items() for d in kinds}


def test_the_english_detector_finds_the_old_mixed_text() -> None:
    """The check bites: the engine's own field description is a run."""
    old = '- "target"：the player you vote out, or null to abstain。必须是 [2, 3] 之一'
    assert english_runs(old) == ["the player you vote out, or null to abstain"]


def decision_section(text: str) -> str:
    for header in ("# Your decision", "# 你的决定", "# Question", "# 问题"):
        if header in text:
            return text.split(header, 1)[1].split("\n# ", 1)[0]
    raise AssertionError("no decision section")


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("style", STYLES)
def test_the_decision_section_cites_its_rule_once(
    captures: dict[str, dict[tuple[str, str], Captured]], language: str, style: str
) -> None:
    for _, c in every_case(captures):
        user = render_prompt(c.view, c.request, language=language, style=style).messages[1][
            "content"
        ]  # type: ignore[arg-type]
        section = decision_section(user)
        first_rule = c.request.rule.split(",")[0]
        assert section.count(first_rule) == 1, (c.request.decision, section)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_answer_format_list_ends_with_a_full_stop(
    captures: dict[str, dict[tuple[str, str], Captured]], language: str
) -> None:
    for _, c in every_case(captures):
        for probe in (False, True):
            user = render_prompt(c.view, c.request, language=language, belief_probe=probe).messages[
                1
            ]["content"]
            # The answer format's general part is in the system message (cached);
            # the question lists the fields, then one line naming the keys.
            fields = [line for line in user.splitlines() if line.startswith('- "')]
            assert len(fields) == len(c.request.fields) + probe, fields
            stop = "." if language == "en" else "。"
            keys_line = user.rstrip("\n").splitlines()[-1 - probe]
            assert keys_line.endswith(stop) and '"reasoning"' in keys_line, keys_line
            assert [line[-1] for line in fields] == [stop] * len(fields), fields


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_speech_answer_with_an_unused_concede_shows_no_payload(language: str) -> None:
    item = HistoryItem(
        3,
        "core.decision",
        4,
        "speeches",
        facts={
            "decision": "speech",
            "fallback": False,
            "payload": {"speech": "I pass.", "concede": False},
        },
    )
    conceded = replace(item, facts={**item.facts, "payload": {"speech": "", "concede": True}})
    c = first_of_each("killer")[("vote", "police")]
    view = replace(c.view, history=(item, conceded))
    plain, used = history_lines(view, language)[1:]
    conceded_word = {"en": "concede", "zh": "认输"}[language]
    assert conceded_word not in plain and "{" not in plain
    assert conceded_word in used  # said in the words the viewer uses: "You pass and concede."


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_killer_is_told_that_naming_a_fellow_kills_a_teammate(
    captures: dict[str, dict[tuple[str, str], Captured]], language: str
) -> None:
    c = captures["killer"][("kill_opinion", "killer")]
    fellows = set(c.view.private["fellow_killers"])
    assert fellows <= set(c.request.fields[0].options)  # legal per KG-3
    for style in STYLES:
        user = render_prompt(c.view, c.request, language=language, style=style).messages[1][
            "content"
        ]  # type: ignore[arg-type]
        hint = ("fellow killer",) if language == "en" else ("同伴", "自己人")
        assert all(word in user for word in hint)


def test_a_night_death_is_dated_by_its_night(
    captures: dict[str, dict[tuple[str, str], Captured]],
) -> None:
    c = captures["killer"][("vote", "police")]
    (dead,) = [d for d in c.view.public["dead"] if d["cause"] == "night"]
    en = render_prompt(c.view, c.request).messages[1]["content"]
    zh = render_prompt(c.view, c.request, language="zh").messages[1]["content"]
    assert f"seat {dead['seat']} (killed on night {dead['day']})" in en
    assert f"{dead['seat']}号（第{dead['day']}夜被杀）" in zh


def test_ff_duel_outcomes_have_no_space_before_punctuation() -> None:
    game = new_game("four_factions", SEED["four_factions"])
    play(game, random.Random(SEED["four_factions"]))
    checked = 0
    for seat in game.seats:
        view = game.view(seat)
        for language in ("en", "zh"):
            for line in history_lines(view, language):
                if "Outcomes" in line or "结果：" in line:
                    checked += 1
                    assert " ;" not in line and " ." not in line and " 。" not in line, line
    assert checked, "the seeded game had no duel"


@pytest.mark.parametrize("variant", list(KINDS))
@pytest.mark.parametrize("language", ["en", "zh"])
def test_full_rules_replace_the_summary(
    captures: dict[str, dict[tuple[str, str], Captured]], variant: str, language: str
) -> None:
    """With the full rules text the summary is left out (it only repeated the
    rules); the compact style, which has no full text, keeps it."""
    c = next(iter(captures[variant].values()))
    text = rules(variant, language)
    with_rules = render_prompt(c.view, c.request, language=language, rules_text=text)
    summary_only = render_prompt(c.view, c.request, language=language)
    system, short = with_rules.messages[0]["content"], summary_only.messages[0]["content"]
    summary_lines = [
        line for line in short.splitlines() if line.startswith("- ") and line not in system
    ]
    assert text in system and len(summary_lines) >= 4
    assert with_rules.prefix_chars < summary_only.prefix_chars + len(text)


def test_the_schema_written_into_a_chinese_prompt_is_introduced_in_chinese() -> None:
    """B6, structured = "none": the schema's lead sentence follows the language
    (the schema itself is JSON: keys, enums and descriptions are data)."""
    from sandbox.agents.llm.answer_format import decision_model, model_schema_instructions

    c = first_of_each("killer")[("vote", "police")]
    lead = model_schema_instructions(decision_model(c.request), "zh").split("{", 1)[0]
    assert english_runs(lead) == [] and "JSON" in lead
