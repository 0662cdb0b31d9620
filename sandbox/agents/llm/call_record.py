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


def note_prompt(record: dict[str, Any], rendered: RenderedPrompt) -> None:
    """How much of the prompt is the stable, cacheable part."""
    record["prefix_chars"] = rendered.prefix_chars
    # System text and record: what the seat's next prompt starts with.
    record["stable_chars"] = rendered.prefix_chars + rendered.cache_chars
    if rendered.summarized:
        record["summarized"] = rendered.summarized


def note_invalid(record: dict[str, Any], err: Exception) -> None:
    """An answer that did not fit the format or the rules (repaired, if turns are left)."""
    record["error"] = f"invalid: {err}"


def note_answer(record: dict[str, Any], payload: Any, parsed: ParsedAnswer) -> None:
    """The decision the referee accepted, and the beliefs that came with it."""
    record["parsed"] = payload
    note_beliefs(record, parsed)


def note_beliefs(record: dict[str, Any], parsed: ParsedAnswer) -> None:
    """Beliefs are private, for study (referee-only); a dropped object leaves
    its reason instead (never a repair: the probe is not part of the decision)."""
    if parsed.beliefs is not None:
        record["beliefs"] = parsed.beliefs
    if parsed.beliefs_error is not None:
        record["beliefs_error"] = parsed.beliefs_error
