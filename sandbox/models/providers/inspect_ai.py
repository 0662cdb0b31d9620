"""inspect_ai's model as a provider: each call is ``Model.generate`` of an
inspect model, so inspect's caching, connection limits, retries, usage limits
and log viewer apply to it. Keys, timeouts and retries are inspect's (its
``--max-retries``, ``--timeout``); the window is the configured one (inspect
does not say a model's window). The answer schema goes as inspect's
``response_schema``, which it sends in one form to every provider that takes
one (the schema rung; llama.cpp's JSON form is not one).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
)
from inspect_ai.util import JSONSchema, LimitExceededError

from sandbox.models.capabilities import Rung
from sandbox.models.client import ProviderFailure, attempt_seed, new_record
from sandbox.models.endpoints import Endpoint, Target
from sandbox.models.providers.base import Provider

ERROR_CHARS = 500  # a provider's error as recorded on the call (one line, cut)


class InspectProvider(Provider):
    """The seat's calls through an inspect ``Model`` (``get_model()`` in a
    solver); ``cache`` is inspect's own response cache."""

    name = "inspect"

    def __init__(self, model: Model, cache: bool = False) -> None:
        super().__init__(Target(str(model)))
        self.model = model
        self.cache = cache

    async def _resolve(self) -> Endpoint:
        return Endpoint(self.target.model, None, None, self.name)

    def pools(self, endpoint: Endpoint) -> bool:
        return False  # inspect keeps its own connections

    def warm_up(self, endpoint: Endpoint) -> int | None:
        return None  # inspect imported its provider's SDK already

    def best_rung(self, endpoint: Endpoint, thinking: bool = False) -> Rung:
        return "schema"

    def completer(
        self,
        temperature: float | None,
        max_tokens: int | None,
        response_format: Mapping[str, Any] | None,
        seed: int | None,
    ) -> InspectCompleter:
        """One decision's calls; ``seed``: a what-if branch's, else None."""
        config = GenerateConfig(
            temperature=temperature,
            max_tokens=max_tokens,
            response_schema=response_schema(response_format),
        )
        return InspectCompleter(self.model, config, self.cache, seed)


class InspectCompleter:
    """One decision's calls through ``Model.generate``: one record per call,
    shaped as the ``llm`` seat's (the transcript's call lines read the same)."""

    def __init__(
        self, model: Model, config: GenerateConfig, cache: bool, seed: int | None = None
    ) -> None:
        self.model = model
        self.config = config
        self.cache = cache
        self.seed = seed  # the decision's sampling seed; each call sends its own draw

    async def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        repair: int,
        calls: list[dict[str, Any]],
        cache_split: int | None = None,
    ) -> str:
        # inspect retries transient errors itself: each call is one attempt here.
        record = new_record(str(self.model), messages, 1, repair)
        calls.append(record)
        config = self.config
        if self.seed is not None:
            # As the llm seat's client draws it: the decision's seed and the turn.
            record["seed"] = attempt_seed(self.seed, repair, 1)
            config = config.merge(GenerateConfig(seed=record["seed"]))
        started = time.perf_counter()
        try:
            output = await self.model.generate(
                chat_messages(messages), config=config, cache=self.cache
            )
        except LimitExceededError:
            raise  # inspect's own limit ends the sample, as inspect means it to
        except Exception as err:
            record["latency_ms"] = elapsed_ms(started)
            record["error"] = one_line(f"{type(err).__name__}: {err}")
            raise ProviderFailure(record["error"]) from None
        record["latency_ms"] = elapsed_ms(started)
        note_output(record, output)
        return output.completion


def note_output(record: dict[str, Any], output: ModelOutput) -> None:
    """What the answer leaves on its record: its text and usage."""
    record["raw"] = output.completion
    usage = output.usage
    if usage is not None:
        record["tokens_in"] = usage.input_tokens
        record["tokens_out"] = usage.output_tokens
        record["cached_tokens"] = usage.input_tokens_cache_read or 0
        record["cost"] = usage.total_cost or 0.0
    if output.error:
        record["error"] = one_line(output.error)


def response_schema(response_format: Mapping[str, Any] | None) -> ResponseSchema | None:
    """inspect's form of the ``json_schema`` answer format (strict: $refs
    already inlined, which inspect's JSONSchema needs); None without one."""
    if not response_format or response_format.get("type") != "json_schema":
        return None
    wire = response_format["json_schema"]
    return ResponseSchema(
        name=str(wire["name"]),
        json_schema=JSONSchema.model_validate(wire["schema"]),
        strict=bool(wire.get("strict")),
    )


def chat_messages(messages: Sequence[Mapping[str, str]]) -> list[ChatMessage]:
    """The seat's conversation (system, user, assistant turns) as inspect's messages."""
    out: list[ChatMessage] = []
    for message in messages:
        role, content = message["role"], message["content"]
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


def one_line(text: str) -> str:
    return " ".join(text.split())[:ERROR_CHARS]


def elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
