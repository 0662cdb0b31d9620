"""The embedded local model: ``local/NAME`` or ``local:PATH.gguf``, served by
llama.cpp's ``llama-server`` on loopback (``sandbox.models.local``). It takes
a GBNF grammar with the schema, has a window of ``n_ctx`` tokens and a fixed
number of slots, and can pin a seat to its own slot or route each call to
the slot that holds most of its prompt."""

from __future__ import annotations

from typing import Any

import sandbox.models.local as local
import sandbox.models.local.slots as slots
from sandbox.models.endpoints import LOCAL_KEY, Endpoint, EndpointError
from sandbox.models.local.router import SlotRouter, router_for
from sandbox.models.providers.openai_client import OpenAIClientProvider, own_server_route


class LocalProvider(OpenAIClientProvider):
    name = "local"

    def check(self) -> None:
        """The model must be installed (`make setup` builds llama-server) and
        its weights found before any game starts; nothing is started here."""
        try:
            local.resolve_model(self.target.model)
            local.check_server_installed()
        except local.LocalModelError as err:
            raise EndpointError(str(err)) from None

    async def _resolve(self) -> Endpoint:
        api_base, model = await local.endpoint_for(self.target.model)
        return Endpoint(str(model), str(api_base), LOCAL_KEY, self.name, own_server_route())

    def context_window(self, endpoint: Endpoint) -> int | None:
        return local.ServerSettings.from_env().n_ctx

    def takes_grammar(self) -> bool:
        return slots.takes_grammar()

    def concurrency(self, configured: int) -> int:
        """Never above what the server decodes at once."""
        return min(configured, local.RECOMMENDED_CONCURRENCY)

    def request_fields(self, seat: int | None) -> dict[str, Any]:
        """The seat's pinned slot (models/local/slots.py; off by default)."""
        return slots.request_fields(seat)

    def slot_router(self, endpoint: Endpoint, wanted: bool = False) -> SlotRouter | None:
        """The server's slot router, for a call that wants it (a seat with the
        shared record) or for every call (SANDBOX_LOCAL_ROUTE=1)."""
        if not endpoint.api_base:
            return None
        settings = local.ServerSettings.from_env()
        if not (settings.route or wanted):
            return None
        return router_for(endpoint.api_base, settings.slots)
