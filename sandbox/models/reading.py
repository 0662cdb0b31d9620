"""Reading a provider's answer the same way on both routes: the direct
route's JSON (attribute access like litellm's response objects), the cached
prompt tokens, and what a reasoning model spent and said while reasoning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class MalformedResponse(Exception):
    """A 200 answer whose body is not the JSON it claims to be (retried)."""


class _Answer:
    """Attribute access over a chat.completion JSON object (the shape litellm
    returns), read only where used."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:
        value = self._data.get(name)
        if isinstance(value, Mapping):
            return _Answer(value)
        if isinstance(value, list):
            return [_Answer(v) if isinstance(v, Mapping) else v for v in value]
        return value


def as_response(answer: Any) -> Any:
    """The direct route's JSON answer, readable like litellm's response."""
    if not isinstance(answer, Mapping) or not answer.get("choices"):
        raise MalformedResponse(f"not a chat completion: {str(answer)[:200]}")
    return _Answer(answer)


def cached_tokens(usage: Any) -> int:
    """Prompt tokens the provider read from its cache: OpenAI's
    ``prompt_tokens_details.cached_tokens`` (litellm fills it for every
    provider), or Anthropic's ``cache_read_input_tokens``."""
    details = getattr(usage, "prompt_tokens_details", None)
    if isinstance(details, Mapping):
        from_details = details.get("cached_tokens")
    else:
        from_details = getattr(details, "cached_tokens", None)
    from_anthropic = getattr(usage, "cache_read_input_tokens", None)
    return max(int(from_details or 0), int(from_anthropic or 0))


def reasoning_tokens(usage: Any) -> int:
    """Completion tokens spent reasoning (``completion_tokens_details.
    reasoning_tokens``; litellm fills it for every provider it translates).
    They are part of ``completion_tokens``, so ``cost`` already prices them."""
    details = getattr(usage, "completion_tokens_details", None)
    if isinstance(details, Mapping):
        found = details.get("reasoning_tokens")
    else:
        found = getattr(details, "reasoning_tokens", None)
    return int(found or 0)


def reasoning_text(message: Any) -> str:
    """The provider's reasoning or its summary: litellm's ``reasoning_content``
    (Anthropic thinking, Gemini thoughts, OpenAI summaries), or, from an
    OpenAI-protocol server straight, ``reasoning_content`` / ``reasoning``
    (vLLM, llama.cpp, DeepSeek, OpenRouter), else the thinking blocks' text."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            return value
    blocks = getattr(message, "thinking_blocks", None) or []
    texts = []
    for block in blocks:
        if isinstance(block, Mapping):
            text = block.get("thinking")
        else:
            text = getattr(block, "thinking", None)
        if isinstance(text, str) and text:
            texts.append(text)
    return "\n\n".join(texts)
