"""The answer schema as sent to the model, composed from cached parts.

With the belief probe, the schema asked for is the decision's own JSON schema
plus a ``beliefs`` property. Built as one pydantic model per (request, probe)
and turned into JSON schema, it cost a model build and a schema generation
(1-3 ms) on nearly every call: each seat's probe and legal options differ.
Here the decision's schema (per request shape) and the beliefs' schema (per
probe: a seat's changes only with a death) are cached apart and joined as
plain dicts; tests/agents/llm/test_wire.py checks the join equals pydantic's schema
of the combined model (``schema.answer_models(...).wire``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from sandbox.agents.llm.beliefs import BeliefProbe
from sandbox.agents.llm.schema import (
    BELIEFS,
    BELIEFS_DESCRIPTION,
    SCHEMA_LEAD,
    AnswerLimits,
    StructuredMode,
    beliefs_model,
    decision_model,
    format_of,
)
from sandbox.core.requests import DecisionRequest

# What schema.decision_model gives the combined model's beliefs field.
BELIEFS_REF = "#/$defs/Beliefs"
CACHE_MAX = 4096  # wire forms kept (a long batch of games stays small)

_Key = tuple[str, tuple[Any, ...], BeliefProbe | None, AnswerLimits, str]
_FORMATS: dict[_Key, dict[str, Any] | None] = {}
_SCHEMAS: dict[_Key, Mapping[str, Any]] = {}


def wire_schema(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits
) -> Mapping[str, Any]:
    """The JSON schema of the answer asked for. Shared: never mutate it."""
    key = (request.decision, request.fields, probe, limits, "")
    found = _SCHEMAS.get(key)
    if found is None:
        if len(_SCHEMAS) >= CACHE_MAX:
            _SCHEMAS.clear()
        core = model_schema(decision_model(request, None, limits))
        found = _SCHEMAS[key] = core if probe is None else with_beliefs(core, probe)
    return found


def with_beliefs(core: Mapping[str, Any], probe: BeliefProbe) -> dict[str, Any]:
    """The decision's schema with the probe's ``beliefs`` object added, laid
    out as pydantic lays out the combined model ($defs first)."""
    properties = {
        **core["properties"],
        BELIEFS: {"$ref": BELIEFS_REF, "description": BELIEFS_DESCRIPTION},
    }
    rest = {k: v for k, v in core.items() if k not in ("properties", "required")}
    beliefs = dict(model_schema(beliefs_model(probe)))
    # A probe's seats share one nested definition (the per-side distribution);
    # a combined model keeps every definition at the top, beside "Beliefs".
    nested = beliefs.pop("$defs", {})
    return {
        "$defs": dict(sorted({**nested, "Beliefs": beliefs}.items())),
        "additionalProperties": rest.pop("additionalProperties"),
        "properties": properties,
        "required": [*core["required"], BELIEFS],
        **rest,
    }


@functools.lru_cache(maxsize=1024)
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def response_format(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits,
    mode: StructuredMode,
) -> dict[str, Any] | None:
    """What to send as ``response_format`` (what ``schema.response_format``
    gives for the combined model), cached per request shape, probe and mode.
    Shared: never mutate it."""
    key = (request.decision, request.fields, probe, limits, mode)
    if key not in _FORMATS:
        if len(_FORMATS) >= CACHE_MAX:
            _FORMATS.clear()
        _FORMATS[key] = format_of(wire_schema(request, probe, limits), mode)
    return _FORMATS[key]


def schema_instructions(
    request: DecisionRequest, probe: BeliefProbe | None, limits: AnswerLimits, language: str
) -> str:
    """For providers without structured output: the schema written into the prompt."""
    schema = json.dumps(wire_schema(request, probe, limits), ensure_ascii=False)
    return f"\n\n{SCHEMA_LEAD.get(language, SCHEMA_LEAD['en'])}\n{schema}"
