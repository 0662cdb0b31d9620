"""How a baseline bot turns what it means into a sentence a person would say.

A bot first decides what to say as structure (whom it accuses, vouches for,
which checks it publishes); the words come after, from a variant's phrasebook:
for each thing to say, several ways of saying it in each language, picked by
the bot's own talk generator. That generator is apart from the one its
decisions draw from, so changing the words never changes how a bot plays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

# phrase key -> language -> the ways of saying it (``str.format`` slots)
Phrases = Mapping[str, Mapping[str, Sequence[str]]]

TALK_SALT = 0x7A1C  # the talk generator's seed differs from the decision generator's
JOINERS = {"en": " ", "zh": ""}  # Chinese sentences run on without spaces


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
