"""How a baseline bot turns what it means into a sentence a person would say.

A bot first decides what to say as structure (whom it accuses, vouches for,
which checks it publishes); the words come after, from a variant's phrasebook:
for each thing to say, several ways of saying it in each language, picked by
the bot's own talk generator. That generator is apart from the one its
decisions draw from, so changing the words never changes how a bot plays.

A variant's phrasebook is data, ``phrases.toml`` in the variant's own package
(:func:`load_phrases`), read with importlib.resources so that an installed
wheel finds it (pyproject.toml's package-data ships it).
"""

from __future__ import annotations

import random
import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.resources import files

# phrase key -> language -> the ways of saying it (``str.format`` slots)
Phrases = Mapping[str, Mapping[str, Sequence[str]]]

TALK_SALT = 0x7A1C  # the talk generator's seed differs from the decision generator's
JOINERS = {"en": " ", "zh": ""}  # Chinese sentences run on without spaces
PHRASES_FILE = "phrases.toml"


@cache
def load_phrases(package: str) -> Phrases:
    """The phrasebook of the variant package ``package`` (its ``phrases.toml``):
    phrase key -> language -> its ways, each list in the file's order (a seed
    picks a way by its place). Every key has English, the fallback of
    :meth:`Phrasebook.say`."""
    text = (files(package) / PHRASES_FILE).read_text(encoding="utf-8")
    phrases = tomllib.loads(text)
    for key, ways in phrases.items():
        if not isinstance(ways, dict) or "en" not in ways or not all(map(_texts, ways.values())):
            raise ValueError(f"{package}/{PHRASES_FILE} [{key}]: per language, a list of strings")
    return phrases


def _texts(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(t, str) for t in value)


class Phrasebook:
    """Seeded choices among a variant's phrasings, in one language."""

    def __init__(self, phrases: Phrases, language: str, seed: int) -> None:
        self.phrases = phrases
        self.language = language if language in JOINERS else "en"
        self.rng = random.Random(seed ^ TALK_SALT)

    def say(self, key: str, **slots: object) -> str:
        """One way of saying ``key`` (English where the language has none)."""
        ways = self.phrases[key].get(self.language) or self.phrases[key]["en"]
        return self.rng.choice(list(ways)).format(**slots)

    def maybe(self, chance: float) -> bool:
        """A coin for optional remarks, from the talk generator."""
        return self.rng.random() < chance

    def join(self, sentences: Sequence[str]) -> str:
        return JOINERS[self.language].join(s for s in sentences if s)
