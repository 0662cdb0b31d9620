"""The Killer rules text, in English and Chinese, with the active rulings: the
templates ``prompts/killer/<lang>/rules.j2`` rendered from the config."""

from __future__ import annotations

from sandbox.games.killer.config import OWN_SIDE, KillerConfig, lineup
from sandbox.words.rules import rules_from_template


def rules_text(config: KillerConfig, language: str = "en") -> str:
    """The full rules in `language` ("en" or "zh") with this config's rulings."""
    return rules_from_template(
        "killer",
        language,
        c=config,
        n=lineup(config.players),  # KG-1: the line-up for this many players
        own_side=config.concede == OWN_SIDE,  # KG-13
    )
