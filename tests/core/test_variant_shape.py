"""The variant contract's shared parts: the core depends on no game, variants are
found through entry points, metadata is declared once, one request-id helper,
and outcomes carry an ending enum and results by role."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from sandbox.core.errors import IllegalDecision
from sandbox.core.game import Game
from sandbox.core.requests import Choice, DecisionRequest, Text, check_shape, request_id
from sandbox.core.variant import CoreEnding, Outcome, Result
from sandbox.games import registry
from sandbox.games.four_factions.state import FFState
from sandbox.games.killer.info import Ending as KillerEnding
from sandbox.games.registry import get_variant, variant_names
from tests.core.toy import TOY_INFO, Toy

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "sandbox" / "core"


def sandbox_imports(path: Path) -> set[str]:
    """Every sandbox module a file imports (absolute imports, as the project writes them)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "sandbox"}


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_imports_only_core(path: Path) -> None:
    outside = {m for m in sandbox_imports(path) if not m.startswith("sandbox.core")}
    assert outside == set(), f"{path.name} imports {sorted(outside)}"


def test_importing_the_core_loads_no_game_agent_or_tool() -> None:
    code = (
        "import sys, sandbox.core.game, sandbox.core.variant, sandbox.core.requests\n"
        "print(sorted(m for m in sys.modules if m.startswith('sandbox.')"
        " and not m.startswith('sandbox.core')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ registry
def test_pyproject_declares_the_builtins_as_entry_points() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = pyproject["project"]["entry-points"][registry.GROUP]
    assert declared == registry.BUILTIN


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> list[EntryPoint]:
    """An empty, unloaded registry whose installed entry points are the returned list."""
    installed: list[EntryPoint] = []
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_BROKEN", {})
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "entry_points", lambda group: list(installed))
    return installed


def test_builtins_are_found_without_installed_metadata(fresh_registry: list[EntryPoint]) -> None:
    assert variant_names() == ["four_factions", "killer", "werewolf"]
    assert get_variant("killer").info.name == "killer"


class Plugin(Toy):
    """A third-party variant, as another package would ship it."""

    info = dataclasses.replace(TOY_INFO, name="plugin", title="Plugin")


def test_a_plugin_entry_point_adds_a_variant(fresh_registry: list[EntryPoint]) -> None:
    fresh_registry.append(EntryPoint("plugin", f"{__name__}:Plugin", registry.GROUP))
    assert variant_names() == ["four_factions", "killer", "plugin", "werewolf"]
    assert isinstance(get_variant("plugin"), Plugin)


def test_a_broken_plugin_is_reported_and_spares_the_others(
    fresh_registry: list[EntryPoint],
) -> None:
    fresh_registry.append(EntryPoint("ghost", "no_such_module:VARIANT", registry.GROUP))
    fresh_registry.append(EntryPoint("misnamed", f"{__name__}:Plugin", registry.GROUP))
    assert variant_names() == ["four_factions", "killer", "werewolf"]
    with pytest.raises(KeyError, match=r"ghost.*failed to load"):
        get_variant("ghost")
    with pytest.raises(KeyError, match="variant named 'plugin'"):
        get_variant("misnamed")


# ------------------------------------------------------------------ metadata
@pytest.mark.parametrize("name", ["killer", "four_factions"])
def test_hooks_and_seat_checks_derive_from_the_declared_info(name: str) -> None:
    variant = get_variant(name)
    config = variant.parse_config({})
    info = variant.info
    assert (variant.name, variant.title) == (info.name, info.title)
    assert variant.role_labels(config) == info.roles
    assert variant.research.decision_fields(config) == info.decisions
    assert variant.rules.seat_count(config) in info.seat_range()
    assert {variant.research.side_of(role) for role in info.roles} == set(info.sides)


def test_a_seat_count_outside_the_declared_range_is_refused() -> None:
    toy = get_variant("toy")
    with pytest.raises(ValueError, match="toy takes 2–9 seats; got 12"):
        Game.new(toy, toy.parse_config({"seats": 12}), 1)


def test_the_four_factions_state_carries_no_config() -> None:
    assert "config" not in FFState.__dataclass_fields__


# ------------------------------------------------------------------ requests
def test_one_request_id_helper_gives_both_forms() -> None:
    assert request_id(7, 3) == "7:3"
    assert request_id(7, 3, "vote") == "7.3.vote"


@pytest.mark.parametrize(("name", "pattern"), [("killer", "{}.{}.{}"), ("four_factions", "{}:{}")])
def test_games_use_the_helper_forms(name: str, pattern: str) -> None:
    variant = get_variant(name)
    game = Game.new(variant, variant.parse_config({}), 3)
    for request in game.pending():
        assert request.id == pattern.format(game.step, request.seat, request.decision)


# ------------------------------------------------------------------- outcome
def killer_game_to_the_end(seed: int) -> Game:
    killer = get_variant("killer")
    game = Game.new(killer, killer.parse_config({"players": 11}), seed)
    while not game.over:
        for request in game.pending():
            game.submit_fallback(request.id, "test")
    return game


def test_outcome_has_an_ending_enum_and_the_reason_text() -> None:
    game = killer_game_to_the_end(4)  # nobody ever votes or kills: the day limit
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.ending is KillerEnding.DAY_LIMIT
    assert outcome.reason == "day_limit" and type(outcome.reason) is str
    assert outcome.by_role(game.roles()) == {"civilian": "draw", "killer": "draw", "police": "draw"}


def test_by_role_groups_results_and_marks_mixed_labels() -> None:
    outcome = Outcome(KillerEnding.KILLERS_ELIMINATED, {1: "win", 2: "lose", 3: "win"}, "")
    assert outcome.by_role({1: "police", 2: "killer", 3: "civilian"}) == {
        "civilian": Result.WIN,
        "killer": Result.LOSE,
        "police": Result.WIN,
    }
    assert outcome.by_role({1: "x", 2: "x", 3: "y"}) == {"x": "mixed", "y": "win"}


def test_an_aborted_game_has_the_core_ending() -> None:
    killer = get_variant("killer")
    game = Game.new(killer, killer.parse_config({}), 1)
    with pytest.raises(ValueError):
        game.abort("bored", "not an ending the core knows")
    game.abort("aborted", "too many failures")
    outcome = game.outcome()
    assert outcome is not None and outcome.ending is CoreEnding.ABORTED
    assert set(outcome.results.values()) == {"draw"}


def test_an_unknown_ending_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown ending 'won'; known: .*surrender.*aborted"):
        get_variant("killer").info.ending("won")


def test_illegal_decisions_still_cite_rules_through_the_split_modules() -> None:
    killer = get_variant("killer")
    game = Game.new(killer, killer.parse_config({}), 2)
    request = game.pending()[0]
    with pytest.raises(IllegalDecision, match=r"\[KG-3\]"):
        game.submit(request.id, {"target": 99})


def test_an_optional_field_may_be_left_out_and_is_not_invented() -> None:
    request = DecisionRequest(
        "0:1",
        1,
        "say",
        "T-1",
        "Say something.",
        (Text("speech", "words"), Choice("mood", ("calm", "angry"), "how", optional=True)),
    )
    assert check_shape(request, {"speech": "hi"}) == {"speech": "hi"}
    both = {"speech": "hi", "mood": "calm"}
    assert check_shape(request, both) == both
    with pytest.raises(IllegalDecision, match=r"\[T-1\] Missing field 'speech'"):
        check_shape(request, {"mood": "calm"})
    with pytest.raises(IllegalDecision, match="'mood' = 'sad' is not allowed"):
        check_shape(request, {"speech": "hi", "mood": "sad"})
    assert request.json_schema()["required"] == ["speech", "mood"]  # models are asked for both
