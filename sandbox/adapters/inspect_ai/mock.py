"""Legal answers for inspect's ``mockllm/model``, to try a task without a provider.

``get_model("mockllm/model", custom_outputs=legal_outputs(seed=1))`` answers
every call with a random value of the answer schema the call carries (inspect's
``response_schema``), or of the schema written in the prompt
(``structured="none"``), drawn as the built-in fake model draws it
(``sandbox.models.fake.answers``). Without a schema it answers ``{}``, which
the seat then repairs like any invalid answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from sandbox.models.fake.answers import legal_answer, schema_in_messages

MOCK_MODEL = "mockllm/model"
MockOutput = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]


def legal_outputs(seed: int = 0) -> MockOutput:
    """A ``custom_outputs`` callable for ``mockllm/model`` (seeded: the same
    calls get the same answers)."""
    rng = random.Random(seed)

    def answer(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema: dict[str, Any] | None
        if config.response_schema is not None:
            schema = config.response_schema.json_schema.model_dump(exclude_none=True)
        else:
            schema = schema_in_messages([{"content": m.text} for m in messages])
        return ModelOutput.from_content(model=MOCK_MODEL, content=legal_answer(schema, rng))

    return answer
