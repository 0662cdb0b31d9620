"""Gemini's generateContent wire (``POST …/models/{model}:generateContent``).

This is the path litellm's ``gemini/`` provider posts to under a custom
``api_base`` (the official one is ``/v1beta/models/…``). JSON mode is
``generationConfig.responseMimeType = application/json``, with the schema in
``responseJsonSchema`` or ``responseSchema`` (litellm writes them
snake_case; both spellings are read). Reasoning is configured by
``generationConfig.thinkingConfig``: any but a ``thinkingBudget`` of 0
thinks, and ``includeThoughts`` sends the thought summary back as a part
marked ``thought: true``; ``usageMetadata`` reports
``thoughtsTokenCount`` apart from ``candidatesTokenCount``, and the implicit
prefix cache's hit as ``cachedContentTokenCount`` (part of
``promptTokenCount``, and left out when 0, as the service does).
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from sandbox.models.fake.wire import BadRequest, Reply, Turn, block_text, chat_form

NAME = "gemini"
TOO_LONG = (
    "The input token count ({tokens}) exceeds the maximum number of tokens allowed ({window})."
)
OVERLOADED_STATUS = 503
METHOD = ":generateContent"

STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def matches(path: str) -> bool:
    return urllib.parse.urlsplit(path).path.endswith(METHOD)


def model_of(path: str) -> str:
    """``…/models/gemini-2.5-flash:generateContent`` → ``gemini-2.5-flash``."""
    name = urllib.parse.urlsplit(path).path.removesuffix(METHOD)
    return urllib.parse.unquote(name.rsplit("/models/", 1)[-1])


def _get(config: Mapping[str, Any], camel: str) -> Any:
    """A field in either spelling the API accepts (``responseMimeType`` or
    ``response_mime_type``)."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return config.get(camel, config.get(snake))


def parse(body: Mapping[str, Any], path: str) -> Turn:
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise BadRequest("* GenerateContentRequest.contents: contents is not specified")
    config = _get(body, "generationConfig") or {}
    messages: list[dict[str, str]] = []
    system = _get(body, "systemInstruction")
    if isinstance(system, Mapping):
        messages.append({"role": "system", "content": block_text(system.get("parts"))})
    for content in contents:
        role = "assistant" if content.get("role") == "model" else "user"
        messages.append({"role": role, "content": block_text(content.get("parts"))})
    schema = _get(config, "responseJsonSchema") or _get(config, "responseSchema")
    json_mode = _get(config, "responseMimeType") == "application/json"
    if schema is not None and not json_mode:
        raise BadRequest("responseSchema requires responseMimeType 'application/json'")
    thinking = _get(config, "thinkingConfig") or {}
    budget = _get(thinking, "thinkingBudget")
    on = bool(thinking) and budget != 0  # no budget: the model's dynamic thinking
    seed = _get(config, "seed")
    return Turn(
        chat=chat_form(model_of(path), messages, schema, seed),
        prompt="".join(m["content"] for m in messages),
        mode="json_schema" if schema is not None else ("json" if json_mode else "text"),
        thinking=on,
        budget=budget if isinstance(budget, int) and budget > 0 else None,
        show_thinking=bool(_get(thinking, "includeThoughts")),
    )


def success(body: Mapping[str, Any], turn: Turn, reply: Reply) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.thinking:
        parts.append({"text": reply.thinking, "thought": True})
    parts.append({"text": reply.text})
    return {
        "candidates": [
            {
                "content": {"parts": parts, "role": "model"},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": usage(reply),
        "modelVersion": str(turn.chat.get("model", "gemini-fake")),
        "responseId": f"fake{time.monotonic_ns()}",
    }


def usage(reply: Reply) -> dict[str, Any]:
    u = reply.usage
    answer_tokens = u.completion_tokens - u.reasoning_tokens
    out: dict[str, Any] = {
        "promptTokenCount": u.prompt_tokens,
        "candidatesTokenCount": answer_tokens,
        "totalTokenCount": u.prompt_tokens + u.completion_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": u.prompt_tokens}],
    }
    if u.cached_tokens:
        out["cachedContentTokenCount"] = u.cached_tokens
        out["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": u.cached_tokens}]
    if reply.thinking is not None:
        out["thoughtsTokenCount"] = u.reasoning_tokens
    return out


def error(status: int, kind: str, message: str, retry_after_s: float) -> dict[str, Any]:
    """Google's error object; a 429 says when to retry in its RetryInfo."""
    err: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": STATUSES.get(status, "INTERNAL"),
    }
    if status == 429:
        err["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                "retryDelay": f"{retry_after_s:g}s",
            }
        ]
    return {"error": err}


def credential(headers: Mapping[str, str], path: str) -> str:
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
    return headers.get("x-goog-api-key", "") or (query.get("key") or [""])[0]


def malformed() -> bytes:
    return b'{"candidates": [ {"content": {"parts": '
