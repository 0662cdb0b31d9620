"""The OpenAI chat-completions wire (``POST …/chat/completions``).

The request is already in the policies' form. When it asks for reasoning
(``reasoning_effort`` other than ``none``) the answer carries the reasoning
text as ``message.reasoning_content`` (as DeepSeek, vLLM and llama.cpp send
it; OpenAI itself keeps it hidden) and its tokens as
``usage.completion_tokens_details.reasoning_tokens``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from sandbox.models.fake.wire import Reply, Turn, prompt_text

NAME = "openai_chat"
TOO_LONG = (
    "This model's maximum context length is {window} tokens; "
    "your messages resulted in {tokens} tokens."
)
OVERLOADED_STATUS = 503

ERROR_TYPES = {
    "rate_limit": ("requests", "rate_limit_exceeded"),
    "auth": ("invalid_request_error", "invalid_api_key"),
    "context": ("invalid_request_error", "context_length_exceeded"),
    "invalid": ("invalid_request_error", None),
    "overloaded": ("server_error", "server_overloaded"),
}


def matches(path: str) -> bool:
    return path.split("?", 1)[0].rstrip("/").endswith("/chat/completions")


def parse(body: Mapping[str, Any], path: str) -> Turn:
    fmt = body.get("response_format")
    mode = str(fmt.get("type", "text")) if isinstance(fmt, Mapping) else "text"
    effort = body.get("reasoning_effort")
    return Turn(
        chat=dict(body),
        prompt=prompt_text(body),
        mode=mode,
        thinking=effort is not None and effort != "none",
    )


def success(body: Mapping[str, Any], turn: Turn, reply: Reply) -> dict[str, Any]:
    """An OpenAI chat.completion object around the reply."""
    return completion(body, reply.text, usage(reply), reply.thinking)


def usage(reply: Reply) -> dict[str, Any]:
    u = reply.usage
    out: dict[str, Any] = {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "total_tokens": u.prompt_tokens + u.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_tokens},
    }
    if reply.thinking is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": u.reasoning_tokens}
    return out


def completion(
    body: Mapping[str, Any],
    text: str,
    usage: Mapping[str, Any],
    reasoning: str | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": f"fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": dict(usage),
    }


def error(status: int, kind: str, message: str, retry_after_s: float) -> dict[str, Any]:
    """OpenAI's error object (the Responses API uses the same one)."""
    kind_type, code = ERROR_TYPES.get(kind, ("server_error", None))
    return {"error": {"message": message, "type": kind_type, "param": None, "code": code}}


def credential(headers: Mapping[str, str], path: str) -> str:
    return headers.get("authorization", "")


def malformed() -> bytes:
    return b'{"id": "x", "choices": [ {"message": '
