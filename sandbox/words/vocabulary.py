"""A variant's vocabulary as data: ``prompts/<variant>/vocabulary.toml``, beside
its templates (its game words are the words its Chinese rules and prompts use,
so they are kept together).

The file has two tables of tables, ``[terms.<lang>]`` (values: roles, endings,
stages, …) and ``[labels.<lang>]`` (field names), each word -> its words in that
language; see :class:`~sandbox.core.words.Vocabulary`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any

from sandbox.core.words import Vocabulary

VOCABULARY = "vocabulary.toml"
PARTS = ("terms", "labels")


def load_vocabulary(variant: str) -> Vocabulary:
    """The vocabulary in the packaged ``prompts/<variant>/vocabulary.toml``
    (read with importlib.resources, so a wheel install finds it too)."""
    found = resources.files("sandbox.prompts").joinpath(variant, VOCABULARY)
    return vocabulary_from_text(found.read_text(encoding="utf-8"), f"{variant}/{VOCABULARY}")


def vocabulary_from_text(text: str, where: str = VOCABULARY) -> Vocabulary:
    """A vocabulary from TOML text; anything but the two tables of words is
    refused with a ValueError naming ``where`` (a typo in a data file would
    otherwise leave a word untranslated without a sound)."""
    raw = tomllib.loads(text)
    unknown = sorted(set(raw) - set(PARTS))
    if unknown:
        raise ValueError(f"{where}: unknown tables {unknown}; allowed: {', '.join(PARTS)}")
    terms, labels = (_tables(raw.get(part, {}), f"{where} [{part}]") for part in PARTS)
    return Vocabulary(terms=terms, labels=labels)


def _tables(raw: Any, where: str) -> dict[str, dict[str, str]]:
    """language -> word -> words, every value a string."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected a table per language")
    found: dict[str, dict[str, str]] = {}
    for language, table in raw.items():
        if not isinstance(table, Mapping) or not all(isinstance(v, str) for v in table.values()):
            raise ValueError(f'{where}.{language}: expected words = "their words" lines')
        found[str(language)] = {str(k): v for k, v in table.items()}
    return found
