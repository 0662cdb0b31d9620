"""What every wire format of the fake provider shares.

A wire module (``openai_chat``, ``anthropic``, ``gemini``, ``responses``)
turns its provider's request into a ``Turn``: the request in chat-completions
form (text messages, the schema as an OpenAI ``response_format``), so the
answer policies in ``answers.py`` see one shape whatever the wire; and it
turns the server's ``Reply`` back into its provider's answer and errors.
The server records one ``Sent`` per request: what it answered, so a test can
compare it with what the client recorded.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sandbox.models.fake.answers import CHARS_PER_TOKEN

THOUGHTS = (
    "The votes so far say more than the speeches.",
    "Whoever pushed hardest yesterday has the most to hide.",
    "A quiet seat is not an innocent one.",
    "I should not show what I know yet.",
    "If I accuse too early I become the target.",
    "The last two claims cannot both be true.",
)


class BadRequest(Exception):
    """A request the real provider would refuse with a 400 (the message is its reason)."""


@dataclass(frozen=True)
class Turn:
    """One request as the answer policies see it, whatever wire it came on."""

    chat: dict[str, Any]  # model, messages (text), response_format, seed: chat-completions form
    prompt: str  # the whole prompt as one text: token counts and caches work on it
    mode: str  # how the answer travels: "text", "json_schema", "json_object", "tool", ...
    thinking: bool = False  # the request asked for reasoning
    budget: int | None = None  # its thinking budget in tokens, if it gave one
    show_thinking: bool = True  # the reasoning text goes back (else only its token count)
    boundaries: tuple[int, ...] = ()  # Anthropic: where each content block of ``prompt`` ends
    breakpoints: tuple[int, ...] | None = None  # Anthropic's cache_control ends; None: implicit


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int  # every input token, cached and cache-written ones included
    cached_tokens: int  # read from the prompt cache
    cache_creation_tokens: int  # written to it (Anthropic only)
    completion_tokens: int  # every output token, reasoning included
    reasoning_tokens: int


@dataclass(frozen=True)
class Reply:
    text: str
    thinking: str | None  # None: the request asked for no reasoning
    usage: Usage


@dataclass(frozen=True)
class Sent:
    """What the fake answered one request with (``FakeLLMServer.sent``)."""

    wire: str
    model: str
    status: int
    fault: str | None = None
    mode: str = "text"
    text: str = ""
    thinking: str | None = None  # the reasoning text as sent (None: none sent)
    usage: Usage | None = None
    retry_after_s: float | None = None  # what a 429 asked for


class Wire(Protocol):
    """One provider's wire format (a module implements these as functions)."""

    NAME: str
    OVERLOADED_STATUS: int  # Anthropic's 529; a 503 elsewhere
    TOO_LONG: str  # the context-overflow message, with {tokens} and {window}

    def matches(self, path: str) -> bool: ...

    def parse(self, body: Mapping[str, Any], path: str) -> Turn: ...

    def success(self, body: Mapping[str, Any], turn: Turn, reply: Reply) -> dict[str, Any]: ...

    def error(
        self, status: int, kind: str, message: str, retry_after_s: float
    ) -> dict[str, Any]: ...

    def credential(self, headers: Mapping[str, str], path: str) -> str:
        """The key as sent (``headers`` with lower-case names)."""
        ...

    def malformed(self) -> bytes: ...


def thought_text(rng: random.Random, budget: int | None) -> str:
    """Private reasoning with a unique mark first (so a test can prove it
    never reaches another seat), within ``budget`` tokens when one is given."""
    mark = f"[thought {rng.randrange(10**9):09d}]"
    text = " ".join([mark, *(rng.choice(THOUGHTS) for _ in range(rng.randint(2, 5)))])
    if budget is not None:
        text = text[: max(len(mark), budget * CHARS_PER_TOKEN)]
    return text


def schema_format(schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A schema found in a provider's request, as the chat form's response_format."""
    if schema is None:
        return None
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": dict(schema)}}


def chat_form(
    model: str,
    messages: Sequence[Mapping[str, str]],
    schema: Mapping[str, Any] | None,
    seed: Any = None,
) -> dict[str, Any]:
    """The chat-completions form of a request that came on another wire."""
    chat: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
    fmt = schema_format(schema)
    if fmt is not None:
        chat["response_format"] = fmt
    if seed is not None:
        chat["seed"] = seed
    return chat


def block_text(content: Any) -> str:
    """The text of a message's content: a string, or a list of blocks/parts
    (text blocks, tool results, tool calls as their JSON)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else str(content)
    out = []
    for block in content:
        if not isinstance(block, Mapping):
            out.append(str(block))
        elif isinstance(block.get("text"), str):
            out.append(block["text"])
        elif "content" in block:  # a tool result
            out.append(block_text(block["content"]))
        elif "input" in block:  # a tool call made earlier
            out.append(json.dumps(block["input"], sort_keys=True))
    return "".join(out)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else an empty one (optional fields)."""
    return value if isinstance(value, Mapping) else {}


def as_object(text: str) -> dict[str, Any] | None:
    """``text`` as a JSON object, or None (then it cannot be a tool's input)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def retry_after_header(seconds: float) -> str:
    """HTTP's Retry-After takes whole seconds: rounded up."""
    return str(max(0, math.ceil(seconds)))


def prompt_text(chat: Mapping[str, Any]) -> str:
    """A chat-form prompt as one string: every message's text in order."""
    return "".join(str(m.get("content") or "") for m in chat.get("messages") or [])
