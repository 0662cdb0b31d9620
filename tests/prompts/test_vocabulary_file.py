"""A variant's game words are data beside its templates
(``prompts/<variant>/vocabulary.toml``), read by one loader
(:mod:`sandbox.words.vocabulary`) that refuses a malformed file."""

from __future__ import annotations

import pytest

from sandbox.games.registry import get_variant
from sandbox.words.vocabulary import load_vocabulary, vocabulary_from_text

BUILT_IN = ("four_factions", "killer", "werewolf")


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_variant_speaks_the_words_of_its_data_file(name: str) -> None:
    variant = get_variant(name)
    words = variant.words()
    assert words is not None
    found = load_vocabulary(name)
    assert (words.vocabulary.terms, words.vocabulary.labels) == (found.terms, found.labels)
    # every part of every role label has its Chinese word (FF's "wolves/elite" too)
    parts = {part for role in variant.info.roles for part in role.split("/")}
    assert parts and all(found.term("zh", part) for part in parts), parts


def test_the_comments_and_the_english_words_survive_the_move() -> None:
    werewolf = load_vocabulary("werewolf")
    assert werewolf.term("en", "tie_draw") == "tie, seeded draw"  # WW-7/WW-15
    assert load_vocabulary("killer").term("en", "not killer") == "not a killer"


def test_a_malformed_vocabulary_is_refused_with_its_place() -> None:
    assert vocabulary_from_text('[terms.zh]\nfox = "狐狸"\n').term("zh", "fox") == "狐狸"
    with pytest.raises(ValueError, match=r"x\.toml: unknown tables \['term'\]"):
        vocabulary_from_text('[term.zh]\nfox = "狐狸"\n', "x.toml")
    with pytest.raises(ValueError, match=r"\[labels\]\.zh"):
        vocabulary_from_text("[labels.zh]\nseat = 3\n")
    with pytest.raises(ValueError, match="a table per language"):
        vocabulary_from_text('terms = "fox"\n')
