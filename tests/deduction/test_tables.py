"""The shipped role tables: each one's roles are its variant's role labels, its
hidden roles make up one side, and every word names a known label."""

from __future__ import annotations

import pytest

from sandbox.deduction.tables import RoleTable, load_table, table_from_mapping
from sandbox.games.registry import get_variant

SHIPPED = ["werewolf", "killer", "four_factions"]


@pytest.mark.parametrize("name", SHIPPED)
def test_a_table_lists_its_variants_roles(name: str) -> None:
    table = load_table(name)
    variant = get_variant(name)
    assert set(table.roles) == set(variant.info.roles)
    # the hidden roles are exactly the roles of one side (none: no such side)
    if table.hidden:
        sides = {variant.research.side_of(r) for r in table.hidden}
        assert len(sides) == 1
        assert {r for r in table.roles if variant.research.side_of(r) in sides} == table.hidden
    assert set(table.words) == {"en", "zh"}
    for language in ("en", "zh"):
        said = {roles for _, roles in table.vocabulary(language)}
        for role in table.roles:  # every role can be named in every language
            assert any(role in roles for roles in said), (language, role)


def test_a_longer_word_comes_before_a_word_it_contains() -> None:
    words = [w for w, _ in load_table("werewolf").vocabulary("zh")]
    assert words.index("狼人") < words.index("狼")


def test_a_table_with_an_unknown_label_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown label"):
        table_from_mapping({"roles": ["a"], "words": {"en": {"b": ["bee"]}}})
    with pytest.raises(ValueError, match="unknown roles"):
        table_from_mapping({"roles": ["a"], "groups": {"g": ["z"]}})
    with pytest.raises(ValueError, match="no role table"):
        load_table("no_such_game")
    assert RoleTable(roles=("a", "b"), hidden=frozenset({"a"})).honest == {"b"}


def test_the_plain_role_is_a_role_of_the_table() -> None:
    """Mini-Mafia's third part (analysis/minimafia.py) is the table's plain role."""
    assert (load_table("werewolf").plain, load_table("killer").plain) == ("villager", "civilian")
    assert load_table("four_factions").plain == ""  # no plain role there
    with pytest.raises(ValueError, match="plain role"):
        RoleTable(roles=("a", "b"), hidden=frozenset({"a"}), plain="z")
