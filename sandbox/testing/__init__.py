"""The conformance kit for game variants (docs/adding-a-game.md, "Checking your
variant"): ``check_variant`` plays random legal games and runs every check.

The checks live in :mod:`sandbox.testing.kit`; import them from here.
"""

from sandbox.testing.kit import (
    CHECKS,
    ConformanceError,
    ConformanceReport,
    Leak,
    check_game,
    check_variant,
    compare_fold,
    find_leaks,
    forbidden_facts,
    legal_answer,
    play_random,
    prompt_text,
    replay,
    view_text,
)

__all__ = [
    "CHECKS",
    "ConformanceError",
    "ConformanceReport",
    "Leak",
    "check_game",
    "check_variant",
    "compare_fold",
    "find_leaks",
    "forbidden_facts",
    "legal_answer",
    "play_random",
    "prompt_text",
    "replay",
    "view_text",
]
