"""A seat played by a program outside the sandbox, in any language, over a WebSocket.

``RemoteAgent()`` serves one endpoint on the web server of the host that seats
it (the run's pages, loopback by default); the run announces its address. The
host comes with the seating (``sandbox run``) or as ``host=`` (a script:
``RemoteAgent(host=sandbox.web.WebRun())``). The program receives
the seat's observation for each decision as JSON and answers JSON; the
protocol is in docs/remote-agents.md and ``sandbox/web/remote.py``.
"""

from __future__ import annotations

import os
from typing import Any

from sandbox.core.seat import (
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
    RemoteSettings,
    SeatHost,
    Seating,
)


class RemoteAgent(Agent):
    """``token``: the endpoint's secret (default: a fresh random one, announced
    with the address); ``token_env`` names an environment variable holding it
    instead (never written to the transcript). ``decision_timeout_s``,
    ``max_invalid``, ``reconnect_s`` and ``connect_timeout_s``: see
    :class:`sandbox.core.seat.RemoteSettings`. ``host``: the web pages that
    serve the endpoint, when the seating brings none."""

    kind = "remote"

    def __init__(
        self,
        *,
        port: int | None = None,
        token: str | None = None,
        token_env: str | None = None,
        decision_timeout_s: float = 60.0,
        max_invalid: int = 3,
        reconnect_s: float = 5.0,
        connect_timeout_s: float = 60.0,
        language: str = "en",
        host: SeatHost | None = None,
    ) -> None:
        if token is None and token_env is not None:
            token = os.environ.get(token_env)
            if not token:
                raise AgentSetupError(f"remote seat: environment variable {token_env} is not set")
        self.port = port
        self.token = token
        self.settings = RemoteSettings(
            decision_timeout_s, max_invalid, reconnect_s, connect_timeout_s
        )
        self.language = language
        self.host = host
        self._seat: Agent | None = None

    def attach(self, seating: Seating) -> None:
        host = seating.host_for("a remote seat", self.host)
        self._seat = host.remote_agent(
            seating.seat, self.port, self.token, self.settings, self.language
        )
        self._seat.attach(seating)

    @property
    def seated_agent(self) -> Agent:
        if self._seat is None:
            raise AgentSetupError("RemoteAgent was not seated (attach) yet")
        return self._seat

    @property
    def url(self) -> str:
        """The program's address (token included), once seated."""
        return str(getattr(self.seated_agent, "url", ""))

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        return await self.seated_agent.decide(ctx)

    def describe(self) -> dict[str, Any]:
        if self._seat is not None:
            return self._seat.describe()
        return {"kind": self.kind}

    async def close(self) -> None:
        if self._seat is not None:
            await self._seat.close()
