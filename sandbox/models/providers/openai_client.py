"""Our own OpenAI-protocol servers, called straight through the openai SDK on
the seat's pooled client (no litellm: seconds to import, milliseconds of CPU
per call). The fake provider and the embedded local model are this provider
with their own server; ``openai`` itself calls the server at ``api_base``.

``SANDBOX_LLM_ROUTE=litellm`` sends these calls through litellm too (the
bench compares both routes); what the provider answers stays the same."""

from __future__ import annotations

import os

from sandbox.models.capabilities import Rung
from sandbox.models.endpoints import ROUTE_ENV, Endpoint, EndpointError, Route
from sandbox.models.providers.base import Provider

NO_KEY = "no-key"  # our own servers ignore the key, but the SDK wants one


class OpenAIClientProvider(Provider):
    name = "openai"
    own_server = True
    free = True  # our own servers: litellm has no price for them

    def check(self) -> None:
        if self.target.api_base is None:
            raise EndpointError(f"model {self.target.model!r} needs api_base (its server)")

    async def _resolve(self) -> Endpoint:
        target = self.target
        return Endpoint(target.model, target.api_base, NO_KEY, self.name, own_server_route())

    def best_rung(self, endpoint: Endpoint, thinking: bool = False) -> Rung:
        """llama.cpp's JSON form (json_object with a schema), which our servers take."""
        return "json"


def own_server_route() -> Route:
    """Our own OpenAI-protocol servers need no translation: the openai SDK
    straight (unless the environment asks for litellm, e.g. to measure it)."""
    return "litellm" if os.environ.get(ROUTE_ENV) == "litellm" else "openai"
