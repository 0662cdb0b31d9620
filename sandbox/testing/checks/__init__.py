"""The conformance checks, one module each, named as in ``CHECKS``; the kit
(:mod:`sandbox.testing.kit`) runs them on every game it plays."""

from sandbox.testing.checks.answers import check_answers
from sandbox.testing.checks.determinism import check_determinism
from sandbox.testing.checks.fold import check_detached, compare_fold
from sandbox.testing.checks.no_leak import PromptAudit, prompt_text, view_text
from sandbox.testing.checks.replay import check_replay
from sandbox.testing.checks.terminates import check_terminates
from sandbox.testing.checks.visibility import check_visibility

__all__ = [
    "PromptAudit",
    "check_answers",
    "check_detached",
    "check_determinism",
    "check_replay",
    "check_terminates",
    "check_visibility",
    "compare_fold",
    "prompt_text",
    "view_text",
]
