"""Four Factions' own words in each language (factions, ranks, weapons, stages,
field labels): the data file ``prompts/four_factions/vocabulary.toml``, loaded
once here for its sentences, cards, boards and its bot's talk."""

from __future__ import annotations

from sandbox.games.four_factions.info import INFO
from sandbox.words.vocabulary import load_vocabulary

VOCABULARY = load_vocabulary(INFO.name)
