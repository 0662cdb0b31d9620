"""The Werewolf rules text, in English and Chinese, with the active rulings
(WW-1..WW-24): the templates ``prompts/werewolf/<lang>/rules.j2`` rendered
from the config."""

from __future__ import annotations

from sandbox.games.werewolf.config import WerewolfConfig
from sandbox.words.rules import rules_from_template


def rules_text(config: WerewolfConfig, language: str = "en") -> str:
    """The full rules in ``language`` ("en" or "zh") with this config's rulings."""
    return rules_from_template("werewolf", language, c=config, n=config.counts())
