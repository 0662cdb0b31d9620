"""The conformance kit for game variants (docs/adding-a-game.md, "Checking your
variant"): ``check_variant`` plays random legal games and runs every check.

The kit is a package, one module per job: :mod:`~sandbox.testing.kit` (the entry
points), :mod:`~sandbox.testing.play` (random legal play and replay),
:mod:`~sandbox.testing.checks` (one module per check),
:mod:`~sandbox.testing.facts` and :mod:`~sandbox.testing.leaks` (the no-leak
check's secrets and how a text states one), :mod:`~sandbox.testing.report`
(the report and the error). Import the names from here.
"""

from sandbox.testing.checks import compare_fold, prompt_text, view_text
from sandbox.testing.facts import forbidden_facts
from sandbox.testing.kit import check_game, check_variant
from sandbox.testing.leaks import Leak, find_leaks
from sandbox.testing.play import legal_answer, play_random, replay
from sandbox.testing.report import CHECKS, ConformanceError, ConformanceReport

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
