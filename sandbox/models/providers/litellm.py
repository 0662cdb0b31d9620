"""The litellm provider: every model string that is not one of our own
servers (``openai/gpt-4o``, ``anthropic/claude-...``), translated for its
provider by litellm (``sandbox.models.remote``). The key comes from
``api_key_env`` or the provider's standard variable (litellm reads it)."""

from __future__ import annotations

import os

import sandbox.models.capabilities as capabilities
import sandbox.models.remote as remote
from sandbox.models.endpoints import Endpoint, EndpointError
from sandbox.models.providers.base import Provider


class LiteLLMProvider(Provider):
    name = "litellm"

    def check(self) -> None:
        """The key must be set, so a game never starts with a seat that cannot
        call its model: the ``api_key_env`` variable, else the provider's
        standard variable(s) as litellm names them. The message names
        variables, never a value."""
        target = self.target
        if target.api_key_env is not None:
            key_from_env(target.api_key_env)
            return
        missing = remote.missing_keys(target.model, target.api_base)
        if missing:
            names = ", ".join(missing)
            raise EndpointError(
                f"model {target.model!r} needs the environment variable {names}, which is "
                "not set (set it, or name another variable with api_key_env)"
            )

    async def _resolve(self) -> Endpoint:
        target = self.target
        key = key_from_env(target.api_key_env)
        return Endpoint(target.model, target.api_base, key, self.name, "litellm")

    def context_window(self, endpoint: Endpoint) -> int | None:
        return remote.context_window(endpoint.model)

    def best_rung(self, endpoint: Endpoint, thinking: bool = False) -> capabilities.Rung:
        """The capability table's rung, else what litellm's model table says
        the model takes."""
        model = endpoint.model
        schema, json_mode = remote.takes_json_schema(model), remote.takes_json_mode(model)
        return capabilities.best_rung(model, schema, json_mode, thinking)


def key_from_env(name: str | None) -> str | None:
    if name is None:
        return None  # litellm reads the provider's standard variable itself
    value = os.environ.get(name)
    if not value:
        raise EndpointError(f"environment variable {name} (api_key_env) is not set")
    return value
