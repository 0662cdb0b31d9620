"""Issue 36 item 3, the static facts: a variant is a handful of modules and the
``Variant`` contract a small class that hands out objects for the rest.

Each fact has a ratchet that holds today (it fails when a change makes things
larger) and the target, expected to fail until the item is done (strict: when
the target is reached the xfail fails, and its marker must go)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from sandbox.core.variant import Research, Rules, Variant
from sandbox.games.registry import get_variant

GAMES = Path(__file__).resolve().parents[2] / "sandbox" / "games"
BUILT_IN = ("four_factions", "killer", "werewolf")
TARGET_METHODS = 12
TARGET_MODULES = 12
# Where things stand (lower these as the item goes on; never raise them).
NOW_METHODS = 10
NOW_MODULES = {"four_factions": 11, "killer": 12, "werewolf": 11}


def public_methods(cls: type) -> list[str]:
    """The public callables and properties a class offers, its bases' included."""
    return sorted(
        name
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_")
        and (callable(member) or isinstance(inspect.getattr_static(cls, name), property))
    )


def modules_of(variant: str) -> list[str]:
    return sorted(p.name for p in (GAMES / variant).rglob("*.py"))


def test_the_counters_count_what_they_say() -> None:
    class Small:
        rule = 1  # data, not a method

        def one(self) -> None: ...

        @property
        def two(self) -> int:
            return 2

        def _hidden(self) -> None: ...

    assert public_methods(Small) == ["one", "two"]
    assert "__init__.py" in modules_of("killer") and "bot.py" in modules_of("killer")


def test_variant_grows_no_public_method() -> None:
    assert len(public_methods(Variant)) <= NOW_METHODS, public_methods(Variant)


def test_variant_has_at_most_twelve_public_methods() -> None:
    assert len(public_methods(Variant)) <= TARGET_METHODS, public_methods(Variant)


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_variant_hands_out_its_rules_and_research(name: str) -> None:
    """The referee's hooks live on ``rules``, the tools' on ``research``."""
    variant = get_variant(name)
    assert isinstance(variant.rules, Rules) and isinstance(variant.research, Research)
    for hook in ("apply", "resolve", "outcome", "roles", "next_in_series", "study_side"):
        assert not hasattr(variant, hook), hook


@pytest.mark.parametrize("variant", BUILT_IN)
def test_a_built_in_variant_grows_no_module(variant: str) -> None:
    assert len(modules_of(variant)) <= NOW_MODULES[variant], modules_of(variant)


@pytest.mark.parametrize("variant", BUILT_IN)
def test_a_built_in_variant_is_at_most_twelve_modules(variant: str) -> None:
    assert len(modules_of(variant)) <= TARGET_MODULES, modules_of(variant)
