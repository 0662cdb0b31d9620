"""The OpenAI Responses wire (``POST …/responses``).

litellm sends a chat call here for ``openai/responses/<model>`` and for the
models its table lists as Responses-only (``o1-pro``, ``gpt-5-pro``, the
codex models). The schema travels in ``text.format`` (``json_schema``);
``reasoning.effort`` makes the model reason, and a ``reasoning.summary``
(``auto``, ``concise``, ``detailed``) sends the summary back in a
``reasoning`` output item; without one the item comes with an empty summary,
as the service sends it. The usage reports ``input_tokens_details.
cached_tokens`` and ``output_tokens_details.reasoning_tokens``. Errors are
OpenAI's, as on the chat wire.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import Any

import sandbox.models.fake.openai_chat as openai_chat
from sandbox.models.fake.wire import BadRequest, Reply, Turn, block_text, chat_form, mapping

NAME = "responses"
OVERLOADED_STATUS = 503
SUMMARIES = ("auto", "concise", "detailed")

TOO_LONG = openai_chat.TOO_LONG
error = openai_chat.error
credential = openai_chat.credential


def matches(path: str) -> bool:
    return path.split("?", 1)[0].rstrip("/").endswith("/responses")


def parse(body: Mapping[str, Any], path: str) -> Turn:
    if "input" not in body:
        raise BadRequest("Missing required parameter: 'input'.")
    messages: list[dict[str, str]] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": str(body["instructions"])})
    items = body["input"]
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
    else:
        for item in items or []:
            role = str(item.get("role", "user")) if isinstance(item, Mapping) else "user"
            content = item.get("content", item.get("output")) if isinstance(item, Mapping) else item
            messages.append({"role": role, "content": block_text(content)})
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, Mapping) else None
    mode = str(fmt.get("type", "text")) if isinstance(fmt, Mapping) else "text"
    schema = fmt.get("schema") if isinstance(fmt, Mapping) and mode == "json_schema" else None
    reasoning = mapping(body.get("reasoning"))
    effort = reasoning.get("effort")
    return Turn(
        chat=chat_form(str(body.get("model", "")), messages, schema),
        prompt="".join(m["content"] for m in messages),
        mode=mode,
        thinking=effort is not None and effort != "none",
        show_thinking=reasoning.get("summary") in SUMMARIES,
    )


def success(body: Mapping[str, Any], turn: Turn, reply: Reply) -> dict[str, Any]:
    digest = hashlib.sha256(reply.text.encode()).hexdigest()[:24]
    output: list[dict[str, Any]] = []
    if reply.thinking is not None:
        summary = [{"type": "summary_text", "text": reply.thinking}] if reply.thinking else []
        output.append({"type": "reasoning", "id": f"rs_{digest}", "summary": summary})
    output.append(
        {
            "type": "message",
            "id": f"msg_{digest}",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
    )
    text = body.get("text")
    if not isinstance(text, Mapping):
        text = {"format": {"type": "text"}}
    return {
        "id": f"resp_fake{time.monotonic_ns()}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": body.get("model", "fake"),
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "text": text,
        "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
        "error": None,
        "incomplete_details": None,
        "usage": usage(reply),
    }


def usage(reply: Reply) -> dict[str, Any]:
    u = reply.usage
    return {
        "input_tokens": u.prompt_tokens,
        "input_tokens_details": {"cached_tokens": u.cached_tokens},
        "output_tokens": u.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.prompt_tokens + u.completion_tokens,
    }


def malformed() -> bytes:
    return b'{"id": "resp_x", "object": "response", "output": [ {"type": '
