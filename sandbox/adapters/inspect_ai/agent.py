"""A seat whose model calls go through inspect_ai's model API.

:class:`InspectAgent` is the ``llm`` seat (:class:`sandbox.agents.llm.LLMAgent`)
with its provider replaced by inspect's model
(:class:`sandbox.models.providers.inspect_ai.InspectProvider`): the same
prompt, answer schema, parse, repair turns and recorded fallback, but each
call is ``Model.generate`` of an inspect model, so inspect's caching,
connection limits, retries, usage limits and log viewer apply to it. The
answer schema goes as inspect's ``response_schema`` (``structured = "none"``:
in the prompt's words instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import Model

from sandbox.agents.llm.agent import Completer, LLMAgent
from sandbox.agents.llm.answer_format import AnswerFormat
from sandbox.agents.llm.settings import LLMSettings
from sandbox.models.endpoints import Endpoint
from sandbox.models.providers.inspect_ai import (
    InspectCompleter,
    InspectProvider,
    chat_messages,
    response_schema,
)

KIND = "inspect"
__all__ = ["KIND", "InspectAgent", "InspectCompleter", "chat_messages", "response_schema"]


class InspectAgent(LLMAgent):
    """A seat played by an inspect model (``get_model()`` in a solver).

    ``InspectAgent(model, max_repairs=2, belief_probe=True)``: the keyword
    arguments are :class:`LLMSettings` keys, as for ``LLMAgent``; ``cache``
    is inspect's own response cache (``Model.generate(cache=...)``). Keys,
    timeouts and retries are inspect's (its ``--max-retries``, ``--timeout``).
    """

    kind = KIND

    def __init__(
        self,
        model: Model,
        *,
        settings: LLMSettings | None = None,
        cache: bool = False,
        **overrides: Any,
    ) -> None:
        self.model = model
        self.response_cache = cache
        self.inspect = InspectProvider(model, cache)
        super().__init__(str(model), settings=settings, provider=self.inspect, **overrides)
        # inspect sends one schema form (its ResponseSchema, $refs inlined) to
        # every provider that takes one: llama.cpp's json_object form is not one.
        mode = "none" if self.settings.structured == "none" else "json_schema"
        self.settings = self.settings.override({"structured": mode})

    def _client(
        self,
        endpoint: Endpoint,
        fmt: AnswerFormat,
        secrets: Sequence[str],
        max_tokens: int | None,
        request_id: str,
    ) -> Completer:
        seed = self._call_seed(request_id)  # a what-if branch's, else None
        return self.inspect.completer(
            self.settings.temperature, max_tokens, fmt.response_format, seed
        )
