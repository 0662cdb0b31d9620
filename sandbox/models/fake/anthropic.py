"""The Anthropic Messages wire (``POST …/v1/messages``).

What litellm sends for a structured answer decides how the fake answers:
a schema in a tool (litellm's ``json_tool_call``, or whatever tool a forced
``tool_choice`` names) gets a ``tool_use`` block with the answer as its
input; a native ``output_format`` (or ``output_config.format``) gets the
JSON as text; no schema gets text. ``thinking`` (``enabled`` with a budget,
or ``adaptive``) puts a signed ``thinking`` block first and its tokens in
``usage.output_tokens_details.thinking_tokens`` (they are also part of
``output_tokens``). Prompt caching is explicit: only ``cache_control``
breakpoints write (see ``cache.BreakpointCache``), and the usage splits the
input into ``cache_read_input_tokens``, ``cache_creation_input_tokens`` and
``input_tokens`` (the rest). The request is checked as the service checks
it, so a client that sends what Claude refuses gets the same 400.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from sandbox.models.fake.wire import (
    BadRequest,
    Reply,
    Turn,
    as_object,
    block_text,
    chat_form,
    mapping,
)

NAME = "anthropic"
TOO_LONG = "prompt is too long: {tokens} tokens > {window} maximum"
OVERLOADED_STATUS = 529
JSON_TOOL = "json_tool_call"  # the tool litellm turns a response_format into
MIN_THINKING_BUDGET = 1024

ERROR_TYPES = {
    "rate_limit": "rate_limit_error",
    "overloaded": "overloaded_error",
    "auth": "authentication_error",
    "context": "invalid_request_error",
    "invalid": "invalid_request_error",
}


def matches(path: str) -> bool:
    return path.split("?", 1)[0].rstrip("/").endswith("/messages")


def parse(body: Mapping[str, Any], path: str) -> Turn:
    check(body)
    thinking = mapping(body.get("thinking"))
    on = thinking.get("type") in ("enabled", "adaptive")
    builder = _Prompt()
    for tool in body.get("tools") or []:
        builder.add(json.dumps(tool, sort_keys=True), tool)
    messages: list[dict[str, str]] = []
    system = body.get("system")
    if system:
        messages.append({"role": "system", "content": builder.add_content(system)})
    for message in body.get("messages") or []:
        text = builder.add_content(message.get("content"))
        messages.append({"role": str(message.get("role", "user")), "content": text})
    mode, schema = answer_mode(body)
    return Turn(
        chat=chat_form(str(body.get("model", "")), messages, schema),
        prompt=builder.text,
        mode=mode,
        thinking=on,
        budget=int(thinking["budget_tokens"]) if on and "budget_tokens" in thinking else None,
        show_thinking=thinking.get("display") != "omitted",
        boundaries=tuple(builder.boundaries),
        breakpoints=tuple(builder.breakpoints),
    )


def check(body: Mapping[str, Any]) -> None:
    """The refusals a client is most likely to run into (the service's wording)."""
    if not isinstance(body.get("max_tokens"), int):
        raise BadRequest("max_tokens: Field required")
    if not body.get("messages"):
        raise BadRequest("messages: at least one message is required")
    thinking = body.get("thinking")
    if not isinstance(thinking, Mapping) or thinking.get("type") not in ("enabled", "adaptive"):
        return
    budget = thinking.get("budget_tokens")
    if thinking.get("type") == "enabled":
        if not isinstance(budget, int) or budget < MIN_THINKING_BUDGET:
            raise BadRequest(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if budget >= int(body["max_tokens"]):
            raise BadRequest("`max_tokens` must be greater than `thinking.budget_tokens`")
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") in ("tool", "any"):
        raise BadRequest("Thinking may not be enabled when tool_choice forces tool use.")
    if body.get("temperature") not in (None, 1, 1.0):
        raise BadRequest("`temperature` may only be set to 1 when thinking is enabled.")


def answer_mode(body: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """("tool", schema), ("output_format", schema) or ("text", None)."""
    tool = schema_tool(body)
    if tool is not None:
        return "tool", dict(tool.get("input_schema") or {})
    config = body.get("output_config")
    nested = config.get("format") if isinstance(config, Mapping) else None
    for fmt in (body.get("output_format"), nested):
        if isinstance(fmt, Mapping) and isinstance(fmt.get("schema"), Mapping):
            return "output_format", dict(fmt["schema"])
    return "text", None


def schema_tool(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The tool that carries the answer: a forced one, else litellm's JSON tool."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, Mapping)]
    choice = body.get("tool_choice")
    wanted = choice.get("name") if isinstance(choice, Mapping) else None
    for name in (wanted, JSON_TOOL):
        for tool in tools:
            if name and tool.get("name") == name:
                return tool
    return None


class _Prompt:
    """The prompt as one text, in the service's cache order (tools, system,
    messages), with where each block ends and which ends are breakpoints."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.boundaries: list[int] = []
        self.breakpoints: list[int] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def add(self, text: str, block: Any) -> str:
        self.parts.append(text)
        self.length += len(text)
        self.boundaries.append(self.length)
        if isinstance(block, Mapping) and block.get("cache_control"):
            self.breakpoints.append(self.length)
        return text

    def add_content(self, content: Any) -> str:
        if not isinstance(content, list):
            return self.add(block_text(content), None)
        return "".join(self.add(block_text([block]), block) for block in content)


def success(body: Mapping[str, Any], turn: Turn, reply: Reply) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.thinking is not None:
        content.append(
            {"type": "thinking", "thinking": reply.thinking, "signature": signature(reply.thinking)}
        )
    tool = schema_tool(body)
    answer = as_object(reply.text) if tool is not None else None
    if tool is not None and answer is not None:
        call_id = "toolu_" + hashlib.sha256(reply.text.encode()).hexdigest()[:24]
        content.append({"type": "tool_use", "id": call_id, "name": tool["name"], "input": answer})
        stop = "tool_use"
    else:
        content.append({"type": "text", "text": reply.text})
        stop = "end_turn"
    return {
        "id": f"msg_fake{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage(reply),
    }


def usage(reply: Reply) -> dict[str, Any]:
    u = reply.usage
    out: dict[str, Any] = {
        "input_tokens": u.prompt_tokens - u.cached_tokens - u.cache_creation_tokens,
        "cache_creation_input_tokens": u.cache_creation_tokens,
        "cache_read_input_tokens": u.cached_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": u.cache_creation_tokens,
            "ephemeral_1h_input_tokens": 0,
        },
        "output_tokens": u.completion_tokens,
        "service_tier": "standard",
    }
    if reply.thinking is not None:
        out["output_tokens_details"] = {"thinking_tokens": u.reasoning_tokens}
    return out


def signature(thinking: str) -> str:
    """Stands in for the service's opaque signature over a thinking block."""
    return hashlib.sha256(("fake-signature:" + thinking).encode()).hexdigest()


def error(status: int, kind: str, message: str, retry_after_s: float) -> dict[str, Any]:
    kind_type = ERROR_TYPES.get(kind, "api_error")
    return {"type": "error", "error": {"type": kind_type, "message": message}}


def credential(headers: Mapping[str, str], path: str) -> str:
    return headers.get("x-api-key", "") or headers.get("authorization", "")


def malformed() -> bytes:
    return b'{"id": "msg_x", "type": "message", "content": [ {"type": '
