"""Every decision's sentence says every field of its answer, for every registered
variant (issue 20: Killer's police checks read a ``target`` the decision does not
have, so every check said "gives no opinion").

The answers come from seeded random games (each seat draws uniformly among the
legal options), played under the default rules, under every game file in
``configs/`` for the variant, and with each switch of the variant's config
flipped, so that every decision a variant declares is asked and every field is
answered with a value at least once. A field is *ignored* when the decision's
line reads the same with the field emptied, or when its value (a seat number, a
choice, a speech) appears nowhere in the line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from sandbox.core.events import DecisionMade
from sandbox.core.words import Answer, UndeclaredField
from sandbox.games.registry import get_variant, variant_names
from sandbox.testing import play_random
from sandbox.words import LANGUAGES, declared_fields, lang, line_text, sanitise, words_for
from sandbox.words import variant_words as words_of

CONFIGS = Path(__file__).parents[2] / "configs"
SEEDS = range(3)
# What a field holds when it says nothing: a skipped choice, no text, an empty
# list, a switch left off, Killer's "no role claimed" (KG-14).
EMPTY: tuple[object, ...] = (None, "", [], False, "none")

Decision = dict[str, Any]  # a core.decision event's data


def configs(variant: str) -> Iterator[BaseModel]:
    """The variant's default rules, those of each of its game files, and the
    defaults with each on/off switch flipped (the rulings that add decisions)."""
    v = get_variant(variant)
    raws: list[dict[str, Any]] = [{}]
    for path in sorted(CONFIGS.rglob("*.toml")):
        game = tomllib.loads(path.read_text("utf-8"))
        if game.get("variant") == variant and isinstance(game.get("rules"), dict):
            raws.append(game["rules"])
    default = v.parse_config({})
    for name, value in default.model_dump().items():
        if isinstance(value, bool):
            raws.append({name: not value})
    for raw in raws:
        try:
            yield v.parse_config(raw)
        except (ValidationError, ValueError):
            continue  # a switch that needs another ruling with it: the files cover it


@cache
def decisions(variant: str) -> tuple[Decision, ...]:
    """Every answered decision of the seeded random games of ``variant``."""
    v = get_variant(variant)
    found: list[Decision] = []
    for config in configs(variant):
        for seed in SEEDS:
            game, _ = play_random(v, config, seed)
            found += [e.to_json()["data"] for e in game.events if isinstance(e, DecisionMade)]
    return tuple(found)


def said(value: object) -> bool:
    return not any(value == empty and type(value) is type(empty) for empty in EMPTY)


def emptied(value: object) -> tuple[object, ...]:
    """The ways of leaving a field out: None, and the empty value of its type."""
    typed: object = None
    if isinstance(value, bool):
        typed = False
    elif isinstance(value, str):
        typed = ""
    elif isinstance(value, list | tuple):
        typed = []
    return (None,) if typed is None else (None, typed)


def line(variant: str, decision: Decision, language: str, payload: Mapping[str, Any]) -> str:
    """The decision as its own seat reads it (no seat number in the subject)."""
    data = {**decision, "payload": dict(payload)}
    words = words_for(get_variant(variant), "core.decision", data, language, you=decision["seat"])
    return line_text(words, None, language)


def shows(value: object, text: str, variant: str, language: str) -> bool:
    """Whether ``value`` can be read in ``text``: a seat number as a number, a
    choice as its game word, a speech as itself; every item of a list."""
    if isinstance(value, bool):
        return True  # a switch has no words of its own: only the change shows it
    if isinstance(value, int):
        return re.search(rf"(?<!\d){value}(?!\d)", text) is not None
    if isinstance(value, str):
        return lang(language, get_variant(variant)).term(value) in text or sanitise(value) in text
    if isinstance(value, list | tuple):
        return all(shows(v, text, variant, language) for v in value)
    return str(value) in text


def ignored_fields(variant: str) -> list[str]:
    """``decision.field (language) why: an example line`` for each field a
    sentence ignores (one example per field and reason)."""
    found: dict[str, str] = {}
    for decision in decisions(variant):
        payload: dict[str, Any] = decision.get("payload") or {}
        names = dict.fromkeys(
            [*declared_fields(get_variant(variant), decision["decision"]), *payload]
        )
        for name in names:
            value = payload.get(name)
            if not said(value):
                continue
            for language in LANGUAGES:
                full = line(variant, decision, language, payload)
                where = f"{decision['decision']}.{name} ({language})"
                for empty in emptied(value):
                    if line(variant, decision, language, {**payload, name: empty}) == full:
                        found.setdefault(f"{where} reads the same as {empty!r}", full)
                if not shows(value, full, variant, language):
                    found.setdefault(f"{where} does not show its value", f"{value!r} in {full}")
    return sorted(f"{why}: {example}" for why, example in found.items())


@pytest.mark.parametrize("variant", variant_names())
def test_the_games_answer_every_declared_field(variant: str) -> None:
    """The payloads below exercise every decision and field the variant declares."""
    answered: dict[str, set[str]] = {}
    for decision in decisions(variant):
        payload = decision.get("payload") or {}
        fields = answered.setdefault(decision["decision"], set())
        fields.update(k for k, v in payload.items() if said(v))
    declared = get_variant(variant).info.decisions  # empty: not known (a minimal variant)
    assert set(declared) <= set(answered), "decisions never asked"
    for name, fields in declared.items():
        assert set(fields) <= answered[name], (name, set(fields) - answered[name])


@pytest.mark.parametrize("variant", variant_names())
def test_every_decision_sentence_says_every_field_of_its_answer(variant: str) -> None:
    assert ignored_fields(variant) == []


@pytest.mark.parametrize("variant", variant_names())
def test_a_decision_phrase_names_a_declared_decision(variant: str) -> None:
    words = words_of(get_variant(variant))
    own = set(words.decisions) if words is not None else set()
    assert own <= set(get_variant(variant).info.decisions), "phrases of undeclared decisions"


def test_a_phrase_cannot_read_a_field_its_decision_lacks() -> None:
    answer = Answer("check_opinion", ("suspect",), {"suspect": 4, "target": 9})
    assert dict(answer) == {"suspect": 4} and answer["suspect"] == 4
    for read in (lambda: answer["target"], lambda: answer.get("target")):
        with pytest.raises(UndeclaredField, match="'check_opinion' has no field 'target'"):
            read()
    assert Answer("vote", ("target",), {})["target"] is None  # left out: no choice


def test_a_police_check_says_its_suspect() -> None:
    """The case of issue 20, in both persons and languages."""
    check = {"seat": 5, "decision": "check_opinion", "payload": {"suspect": 1}}
    assert (
        words_for(get_variant("killer"), "core.decision", check).sentence
        == "Seat 5 wants seat 1 checked."
    )
    assert words_for(get_variant("killer"), "core.decision", check, you=5).sentence == (
        "You want seat 1 checked."
    )
    assert (
        words_for(get_variant("killer"), "core.decision", check, "zh", you=5).sentence
        == "你主张查验1号。"
    )
    none = {**check, "payload": {"suspect": None}}
    assert (
        words_for(get_variant("killer"), "core.decision", none).sentence
        == "Seat 5 gives no opinion."
    )
