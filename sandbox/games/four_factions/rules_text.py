"""The rules as players read them, with the active rulings, citing rule IDs:
the templates ``prompts/four_factions/<lang>/rules.j2`` rendered from the config."""

from __future__ import annotations

from sandbox.games.four_factions.config import FourFactionsConfig
from sandbox.words.rules import rules_from_template


def rules_text(cfg: FourFactionsConfig, language: str = "en") -> str:
    """The full rules in `language` ("en" or "zh") with this config's rulings."""
    return rules_from_template(
        "four_factions",
        language,
        c=cfg,
        per_seat=any(s.hp is not None for s in cfg.seat),  # FF-7: [[seat]] tables' own hp
    )
