"""The rules text in both languages: every rule ID, every ruling as configured,
Chinese without English sentences, and unknown languages rejected.

The option tables below name, for each config field, two settings, the rule
IDs whose text must state it, and a short marker per language that only the
matching setting may produce. A new config field fails
`test_every_config_field_is_covered` until it is listed here."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext
from sandbox.core.variant import Variant
from sandbox.games.four_factions.config import FourFactionsConfig
from sandbox.games.killer.config import KillerConfig
from sandbox.games.registry import get_variant
from sandbox.session.gamefile import load_config

LANGUAGES = ("en", "zh")
RULE_COUNT = {"four_factions": ("FF", 29), "killer": ("KG", 15)}
ID_PATTERN = re.compile(r"\b(FF|KG)-(\d+(?:/\d+)*)")
# A word of Latin letters followed by three more, joined only by ASCII
# non-letters (spaces, punctuation, digits): an English phrase, not a symbol.
ENGLISH_RUN = re.compile(r"[A-Za-z]+(?:[\x00-\x40\x5b-\x60\x7b-\x7f]+[A-Za-z]+){3,}")
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Option:
    """Two settings of one config field and what each must make the text say."""

    name: str
    values: tuple[Any, Any]
    rule_ids: frozenset[str]
    # markers[language][i]: a phrase only values[i] may produce; None = check
    # that str(values[i]) appears in the rule's own text instead.
    markers: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)
    # Other keys set with both values: a ruling that matters only under another
    # (OD-4's budget applies only with discussion = "open").
    base: Mapping[str, Any] = field(default_factory=dict)


def _ids(*names: str) -> frozenset[str]:
    return frozenset(names)


NUMBER = {"en": (None, None), "zh": (None, None)}
OPEN_DAY = {"discussion": "open"}

FF_OPTIONS = (
    Option(
        "elite_knowledge",
        ("all", "own_faction"),
        _ids("FF-9"),
        {"en": ("twelve", "own faction's three"), "zh": ("十二名", "本阵营三名")},
    ),
    Option(
        "weapon_assignment",
        ("balanced", "random"),
        _ids("FF-8"),
        {"en": ("one each", "at random"), "zh": ("各持一种", "随机")},
    ),
    Option(
        "defender_learns_attacker",
        (False, True),
        _ids("FF-12"),
        {
            "en": ("NOT who the attacker", "also the attacker's seat"),
            "zh": ("不知道攻击者", "还知道攻击者的座位号"),
        },
    ),
    Option(
        "wounds_between_regulars",
        (True, False),
        _ids("FF-23"),
        {"en": ("also between two regulars", "has no effect"), "zh": ("也不例外", "轻伤不生效")},
    ),
    Option(
        "reveal_faction_on_death",
        (False, True),
        _ids("FF-28"),
        {
            "en": ("but not their factions", "and their factions"),
            "zh": ("不公布其阵营", "并公布其阵营"),
        },
    ),
    Option("day_limit", (20, 37), _ids("FF-27"), NUMBER),
    Option("hp", (5, 29), _ids("FF-7"), NUMBER),
    Option(
        "seat",
        ((), ({"seat": 3, "hp": 12},)),
        _ids("FF-7"),
        {"en": (None, "their own maximum HP"), "zh": (None, "各自的最大生命值")},
    ),
    # OD-1: FF-18's turns or an open day
    Option(
        "discussion",
        ("turns", "open"),
        _ids("FF-18"),
        {"en": ("speeches start at seat", "Open discussion"), "zh": ("开始发言", "自由讨论")},
    ),
    # OD-4: an open day's budget, stated only when the day is open
    Option("messages_per_seat", (3, 2), _ids("FF-18"), NUMBER, OPEN_DAY),
    Option(
        "messages_per_day",
        (None, 20),
        _ids("FF-18"),
        {"en": ("3 messages per seat alive", None), "zh": ("存活人数 × 3", None)},
        OPEN_DAY,
    ),
    Option("quiet_rounds", (1, 2), _ids("FF-18"), NUMBER, OPEN_DAY),
    # graveyard talk (issue 38), off by default: an FF-19 ruling
    Option(
        "graveyard_chat",
        (False, True),
        _ids("FF-19"),
        {
            "en": ("Choices are sealed and simultaneous.", "only the dead and the spectators"),
            "zh": ("同时做出。", "只有亡者和观众能看到"),
        },
    ),
)
KILLER_OPTIONS = (
    # 15 players: 4 killers, 4 police, 7 civilians, and a last-words quota of 4.
    Option("players", (12, 15), _ids("KG-1", "KG-7"), NUMBER),
    Option(
        "check_answer",
        ("identity", "killer_or_not"),
        _ids("KG-4"),
        {"en": ("exact role", "whether the suspect is a killer"), "zh": ("确切身份", "是不是杀手")},
    ),
    Option(
        "reveal_role_on_death",
        (False, True),
        _ids("KG-6"),
        {"en": ("without their role", "with their role"), "zh": ("不公布其身份", "并公布其身份")},
    ),
    Option("day_limit", (30, 43), _ids("KG-12"), NUMBER),
    Option(
        "previous_first_victim",
        (None, 9),
        _ids("KG-5"),
        {"en": (None, "seat 9"), "zh": (None, "9号")},
    ),
    Option(
        "concede",
        ("either_side_down_to_one", "own_side_down_to_one"),
        _ids("KG-13"),
        {
            "en": ("any living police player or killer", "whose own side is down to one"),
            "zh": ("任何一名存活的警察或杀手", "只有当己方只剩一名"),
        },
    ),
    # OD-1: KG-8's turns or an open day (KG-15's floor says which too)
    Option(
        "discussion",
        ("turns", "open"),
        _ids("KG-8", "KG-15"),
        {"en": ("speaks once", "Open discussion"), "zh": ("依次发言一次", "自由讨论")},
    ),
    # OD-4: an open day's budget, stated only when the day is open
    Option("messages_per_seat", (3, 2), _ids("KG-8"), NUMBER, OPEN_DAY),
    Option(
        "messages_per_day",
        (None, 20),
        _ids("KG-8"),
        {"en": ("3 × the living", None), "zh": ("存活人数的3倍", None)},
        OPEN_DAY,
    ),
    Option("quiet_rounds", (1, 2), _ids("KG-8"), NUMBER, OPEN_DAY),
    # table talk (issue 38), off by default: the KG-3 and KG-14 rulings
    Option(
        "killer_chat",
        (False, True),
        _ids("KG-3"),
        {
            "en": ("Killers then see each other's opinions.", "only the living killers read"),
            "zh": ("之后杀手能看到彼此的意见。", "只有存活的杀手能看到"),
        },
    ),
    Option(
        "graveyard_chat",
        (False, True),
        _ids("KG-14"),
        {
            "en": ("(last words aside).", "only the dead and the spectators read"),
            "zh": ("（遗言除外）。", "只有亡者和观众能看到"),
        },
    ),
)
OPTIONS = {"four_factions": FF_OPTIONS, "killer": KILLER_OPTIONS}
# Fields that are not rulings: a scenario's fixed roles are secret and must
# never show in the rules every seat reads (the test below checks that).
NOT_RULINGS = {"four_factions": set[str](), "killer": {"seat"}}
HIDDEN_SEATS: dict[str, dict[str, Any]] = {
    "four_factions": {"seat": [{"seat": 4, "faction": "spies", "elite": True}]},
    "killer": {"seat": [{"seat": 2, "role": "killer"}]},
}


def variant(name: str) -> Variant[Any]:
    return get_variant(name)


def text(name: str, raw: Mapping[str, Any], language: str) -> str:
    game = variant(name)
    return game.rules_text(game.parse_config(dict(raw)), language=language)


def ids_in(fragment: str) -> set[str]:
    """Rule IDs cited in a fragment; "FF-16/17" cites FF-16 and FF-17."""
    found: set[str] = set()
    for prefix, numbers in ID_PATTERN.findall(fragment):
        found.update(f"{prefix}-{n}" for n in numbers.split("/"))
    return found


def blocks(rules: str) -> list[str]:
    """The text split into rule blocks: a block starts at a line that opens
    with a rule ID; lines without one continue the block above."""
    result: list[str] = []
    for line in rules.splitlines():
        if not result or ID_PATTERN.match(line.lstrip("[")):
            result.append(line)
        else:
            result[-1] += "\n" + line
    return result


def rule_text(rules: str, rule_id: str) -> str:
    cited = [b for b in blocks(rules) if rule_id in ids_in(b)]
    assert cited, f"{rule_id} is not cited"
    return "\n".join(cited)


def option_cases() -> list[tuple[str, Option, str]]:
    return [
        (name, option, language)
        for name, options in OPTIONS.items()
        for option in options
        for language in LANGUAGES
    ]


CASES = option_cases()


@pytest.mark.parametrize(
    ("name", "option", "language"), CASES, ids=[f"{n}-{o.name}-{lang}" for n, o, lang in CASES]
)
def test_each_option_changes_only_its_own_rules(name: str, option: Option, language: str) -> None:
    first, second = (text(name, {**option.base, option.name: v}, language) for v in option.values)
    before, after = blocks(first), blocks(second)
    assert len(before) == len(after), "an option must not add or drop rules"
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed, f"{option.name} does not show in the {language} text"
    for a, b in changed:
        assert ids_in(a) & option.rule_ids, f"{option.name} changed an unrelated rule: {b!r}"


@pytest.mark.parametrize(
    ("name", "option", "language"), CASES, ids=[f"{n}-{o.name}-{lang}" for n, o, lang in CASES]
)
def test_each_option_states_its_setting(name: str, option: Option, language: str) -> None:
    markers = option.markers[language]
    for index, value in enumerate(option.values):
        rules = text(name, {**option.base, option.name: value}, language)
        own = "\n".join(rule_text(rules, rule_id) for rule_id in sorted(option.rule_ids))
        marker = markers[index]
        if marker is None and value not in (None, ()):
            assert str(value) in own, f"{option.name}={value} missing from {own!r}"
        elif marker is not None:
            assert marker in own, f"{option.name}={value}: expected {marker!r} in {own!r}"
        other = markers[1 - index]
        if other is not None and other != marker:
            assert other not in rules, f"{option.name}={value} but text says {other!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_player_count_sets_every_count(language: str) -> None:
    """KG-1/KG-7: 15 players are 4 killers, 4 police, 7 civilians; quota 4."""
    rules = text("killer", {"players": 15}, language)
    lineup = rule_text(rules, "KG-1")
    assert all(str(n) in lineup for n in (15, 4, 7)), lineup
    assert "4" in rule_text(rules, "KG-7") and "3" not in rule_text(rules, "KG-7")


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_config_field_is_covered(name: str) -> None:
    fields = set(variant(name).config_model.model_fields)
    covered = {o.name for o in OPTIONS[name]} | NOT_RULINGS[name]
    assert fields == covered, f"config fields without a rules-text test: {fields ^ covered}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_fixed_roles_stay_secret(name: str, language: str) -> None:
    assert text(name, HIDDEN_SEATS[name], language) == text(name, {}, language)


def every_setting(name: str) -> list[dict[str, Any]]:
    """The default config and the one with every listed option flipped."""
    flipped = {o.name: o.values[1] for o in OPTIONS[name]}
    return [{}, flipped]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_rule_id_is_cited(name: str, language: str) -> None:
    prefix, count = RULE_COUNT[name]
    wanted = {f"{prefix}-{n}" for n in range(1, count + 1)}
    for raw in every_setting(name):
        cited = ids_in(text(name, raw, language))
        assert wanted <= cited, f"missing: {sorted(wanted - cited)}"
        assert cited <= wanted, f"unknown IDs: {sorted(cited - wanted)}"


def without_ids(rules: str) -> str:
    return ID_PATTERN.sub(" ", rules)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_chinese_text_has_no_english_sentence(name: str) -> None:
    for raw in every_setting(name):
        rules = text(name, raw, "zh")
        runs = ENGLISH_RUN.findall(without_ids(rules))
        assert not runs, f"English left in the Chinese text: {runs}"
        bare = [line for line in rules.splitlines() if not CJK.search(line)]
        assert not bare, f"lines without Chinese: {bare}"


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_english_detector_finds_english(name: str) -> None:
    """The check above can fail: it finds the English text's sentences."""
    assert ENGLISH_RUN.search(without_ids(text(name, {}, "en")))


TERMS = {
    "four_factions": (
        "狼人",
        "间谍",
        "司法",
        "军队",
        "最强精英",
        "非最强精英",
        "石头",
        "剪刀",
        "布",
        "防石头",
        "防剪刀",
        "防布",
        "秒杀",
        "轻伤",
        "无差别反击",
        "三非一是",
        "上半夜",
        "下半夜",
    ),
    "killer": ("警察", "杀手", "平民", "法官", "遗言", "公决", "平局", "认输", "亮牌"),
}


@pytest.mark.parametrize("name", sorted(TERMS))
def test_chinese_uses_the_sources_terms(name: str) -> None:
    rules = text(name, {}, "zh")
    missing = [term for term in TERMS[name] if term not in rules]
    assert not missing, f"source terms missing: {missing}"


# The variant's own method (its rules text is the generic template renderer
# called from the declaration; there is no rules_text module any more).
RULES_FUNCTIONS: dict[str, tuple[Callable[..., str], type[BaseModel]]] = {
    "four_factions": (get_variant("four_factions").rules_text, FourFactionsConfig),
    "killer": (get_variant("killer").rules_text, KillerConfig),
}


@pytest.mark.parametrize("language", ["fr", "EN", "", "zh-CN"])
@pytest.mark.parametrize("name", sorted(RULES_FUNCTIONS))
def test_unknown_language_is_rejected(name: str, language: str) -> None:
    function, model = RULES_FUNCTIONS[name]
    with pytest.raises(ValueError, match=r'allowed: "en", "zh"') as raised:
        function(model(), language)
    assert repr(language) in str(raised.value)
    with pytest.raises(ValueError, match="allowed"):
        variant(name).rules_text(model(), language=language)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_english_is_the_default(name: str) -> None:
    function, model = RULES_FUNCTIONS[name]
    assert function(model()) == function(model(), "en") == text(name, {}, "en")
    assert not CJK.search(function(model()))


@pytest.mark.parametrize(("name", "first_id"), [("killer", "KG-1"), ("four_factions", "FF-1")])
def test_cli_prints_chinese_rules(name: str, first_id: str) -> None:
    result = CliRunner().invoke(app, ["rules", name, "--language", "zh"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == text(name, {}, "zh").strip()
    assert first_id in result.output and CJK.search(result.output)


def test_zh_game_file_gives_seats_chinese_rules(tmp_path: Path) -> None:
    """A seat reading the rules in zh gets the Chinese text with the file's own
    rulings (the runner derives each seat's rules in the seat's language)."""
    game_file = tmp_path / "killer_zh.toml"
    game_file.write_text(
        'variant = "killer"\n[rules]\nplayers = 15\ncheck_answer = "killer_or_not"\n'
        '[default_agent]\nkind = "random"\n[llm]\nlanguage = "zh"\n',
        encoding="utf-8",
    )
    loaded = load_config(game_file)
    game = Game.new(loaded.variant, loaded.game_config, 1)
    rules = DecisionContext.for_request(game, game.pending()[0]).rules(loaded.file.llm.language)
    assert rules == text("killer", {"players": 15, "check_answer": "killer_or_not"}, "zh")
