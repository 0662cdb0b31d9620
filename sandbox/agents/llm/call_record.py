"""The last stage of a decision: what each model call leaves on its record,
beyond what the client writes (messages, answer text, tokens, cost, latency).

A study of caching and budgets reads the prompt's stable lengths from it, a
study of reasoning the parsed decision, a study of beliefs the private belief
object (referee-only) or why it was dropped.
"""

from __future__ import annotations

from typing import Any

from sandbox.agents.llm.parse import ParsedAnswer
from sandbox.agents.llm.prompt import RenderedPrompt


def note_call(
    record: dict[str, Any],
    rendered: RenderedPrompt,
    outcome: ParsedAnswer | Exception,
    *,
    payload: Any = None,
    probe_only: bool = False,
    litellm_import_ms: int | None = None,
) -> None:
    """Once per call, after its answer was read: the prompt's stable lengths,
    then what the answer was (``outcome``: the parsed answer, with
    ``payload`` the referee accepted, or why it was refused). A probe-only
    call (``probe_only``) has no decision: only its beliefs are kept, and a
    refused answer is also the reason its beliefs are missing."""
    # How much of the prompt is the stable, cacheable part.
    record["prefix_chars"] = rendered.prefix_chars
    # System text and record: what the seat's next prompt starts with.
    record["stable_chars"] = rendered.prefix_chars + rendered.cache_chars
    if rendered.summarized:
        record["summarized"] = rendered.summarized
    if litellm_import_ms is not None:  # the first call after the seat paid the import
        record["litellm_import_ms"] = litellm_import_ms
    if isinstance(outcome, Exception):
        record["error"] = f"invalid: {outcome}"
        if probe_only:
            record["beliefs_error"] = record["error"]
        return
    if not probe_only:
        record["parsed"] = payload
    note_beliefs(record, outcome)


def note_beliefs(record: dict[str, Any], parsed: ParsedAnswer) -> None:
    """Beliefs are private, for study (referee-only); a dropped object leaves
    its reason instead (never a repair: the probe is not part of the decision)."""
    if parsed.beliefs is not None:
        record["beliefs"] = parsed.beliefs
    if parsed.beliefs_error is not None:
        record["beliefs_error"] = parsed.beliefs_error
