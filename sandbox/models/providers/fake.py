"""The fake provider: ``fake/<policy>`` (e.g. ``fake/legal-random``) answers
from the built-in fake server (``sandbox.models.fake``), started on first use
on a free loopback port, or from the ``api_base`` given (a ``sandbox
fake-llm`` server). Each seat on the built-in server holds a reference from
its first call until :meth:`close`; the last one stops it."""

from __future__ import annotations

import sandbox.models.endpoints as endpoints
from sandbox.models.endpoints import FAKE_KEY, FAKE_PREFIX, Endpoint, EndpointError
from sandbox.models.providers.openai_client import OpenAIClientProvider, own_server_route


class FakeProvider(OpenAIClientProvider):
    name = "fake"

    def __init__(self, target: endpoints.Target) -> None:
        super().__init__(target)
        self._holds_server = False

    @property
    def policy(self) -> str:
        return self.target.model[len(FAKE_PREFIX) :]

    def check(self) -> None:
        """The policy must be known: a typo would otherwise play another
        experiment (the server's default policy) without a word."""
        from sandbox.models.fake.answers import POLICIES

        if self.policy not in POLICIES:
            raise EndpointError(
                f"unknown fake policy {self.policy!r} in model {self.target.model!r}; "
                f"allowed: {', '.join(POLICIES)}"
            )

    async def _resolve(self) -> Endpoint:
        api_base = self.target.api_base
        if api_base is None:
            if not self._holds_server:
                endpoints.acquire_builtin_fake()
                self._holds_server = True
            api_base = endpoints.builtin_fake_server().base_url
        model = f"openai/fake-{self.policy}"
        return Endpoint(model, api_base, FAKE_KEY, self.name, own_server_route())

    async def close(self) -> None:
        await super().close()
        if self._holds_server:
            self._holds_server = False
            endpoints.release_builtin_fake()
