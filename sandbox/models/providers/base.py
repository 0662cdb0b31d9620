"""What every provider answers: how a seat's model is reached, and the
capability questions the seat asks before and during its calls.

A provider is made per seat from its :class:`~sandbox.models.endpoints.Target`
(the registry, ``providers.provider_for``, picks the class by the model
string). The seat never asks which provider it holds: it asks the provider
(which rung of the structured-output ladder, whether a grammar goes with the
schema, the model's window, the seat's pinned slot, what a call cost), so a
new provider is a new subclass here and nothing in the seat changes.

The defaults below are a provider that knows nothing of its model: the
prompt rung, no grammar, no window, no slots, the configured concurrency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import sandbox.models.remote as remote
from sandbox.models.capabilities import Rung
from sandbox.models.endpoints import Endpoint, Target
from sandbox.models.pool import Lease

if TYPE_CHECKING:
    from sandbox.models.local.router import SlotRouter


class Provider:
    """One way of serving a model string. Subclasses set ``name`` (the
    registry's key, recorded as ``Endpoint.provider``) and override what they
    know (the registry checks their optional packages before importing them)."""

    name: ClassVar[str] = ""
    # One of our own OpenAI-protocol servers: the answer format takes
    # llama.cpp's forms of the JSON rung (answer_format.for_decision).
    own_server: ClassVar[bool] = False
    # Costs nothing: no price is asked of litellm's table.
    free: ClassVar[bool] = False

    def __init__(self, target: Target) -> None:
        self.target = target
        self._lease: Lease | None = None

    # ------------------------------------------------------------ setup
    def check(self) -> None:
        """Raise EndpointError now if the target cannot be called as configured
        (before any game event); nothing is started here."""

    async def open(self) -> Endpoint:
        """Where the seat's calls go; takes what they need (a server, a pooled
        HTTP client) until :meth:`close`."""
        endpoint = await self._resolve()
        if self._lease is None and endpoint.api_key and self.pools(endpoint):
            self._lease = Lease(endpoint.api_base, endpoint.api_key)
        return endpoint

    async def _resolve(self) -> Endpoint:
        raise NotImplementedError

    def pools(self, endpoint: Endpoint) -> bool:
        """Whether the seat's calls share one pooled OpenAI-protocol client
        (``pool.Lease``): our own servers, and OpenAI-protocol models."""
        return endpoint.route == "openai" or endpoint.model.startswith("openai/")

    def http(self) -> Any:
        """The pooled client the calls go out on (None: each call opens its own)."""
        return self._lease.client() if self._lease is not None else None

    async def close(self) -> None:
        """Release what :meth:`open` took (the last holder closes it)."""
        if self._lease is not None:
            lease, self._lease = self._lease, None
            await lease.release()

    def warm_up(self, endpoint: Endpoint) -> int | None:
        """Pay a one-off cost now, not inside the first timed call: litellm's
        import (seconds) when the calls go through it. The milliseconds this
        seat paid, else None."""
        if endpoint.route != "litellm" or remote.litellm_import_s is not None:
            return None
        remote.litellm_module()
        return round((remote.litellm_import_s or 0.0) * 1000)

    # ------------------------------------------------ capability questions
    def context_window(self, endpoint: Endpoint) -> int | None:
        """The model's input window in tokens (None: unknown, no budget)."""
        return None

    def best_rung(self, endpoint: Endpoint, thinking: bool = False) -> Rung:
        """The highest structured-output rung the model stands on (``auto``)."""
        return "prompt"

    def takes_grammar(self) -> bool:
        """Whether a GBNF grammar goes with the JSON rung (llama-server's)."""
        return False

    def concurrency(self, configured: int) -> int:
        """Calls at once for this model: the configured limit, unless the
        server serves fewer."""
        return configured

    def request_fields(self, seat: int | None) -> dict[str, Any]:
        """What a seat's calls add to the request body (a pinned slot)."""
        return {}

    def slot_router(self, endpoint: Endpoint, wanted: bool = False) -> SlotRouter | None:
        """The router that picks the server slot for each call (None: the
        server chooses, or it has no slots)."""
        return None

    def cache_breakpoints(self, endpoint: Endpoint) -> bool:
        """Whether the model caches a prompt prefix only up to explicit
        breakpoints (Anthropic's ``cache_control``, also through Bedrock or
        Vertex); the others cache prefixes unasked."""
        return remote.needs_cache_control(endpoint.model)

    def call_cost(self, response: Any) -> float:
        """US$ for one answer: litellm's price (cached prompt tokens at the
        cached rate), 0.0 for a free provider or a model it does not price."""
        return 0.0 if self.free else remote.call_cost(response)
