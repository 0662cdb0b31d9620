"""A person at the table, in this terminal or in a browser page."""

from __future__ import annotations

from typing import Any, Literal

from sandbox.core.seat import (
    Agent,
    AgentAnswer,
    AgentSetupError,
    DecisionContext,
    SeatHost,
    Seating,
)

Interface = Literal["terminal", "browser"]


class HumanAgent(Agent):
    """``HumanAgent()`` plays in this terminal; ``HumanAgent("browser", port=8765)``
    serves a page on loopback (a free port when none is given). ``decision_timeout_s``
    bounds each decision (then the documented fallback, reason ``timeout``);
    ``language`` is the page's and the rules' language; ``pace_s`` (browser) is
    how long the game waits after each event the page shows, so a person can
    read. The seat's page or prompt is set up when the agent is seated; a page
    is served by the host that seats it (``sandbox run``'s web pages), or by
    ``host`` (a script: ``HumanAgent("browser", host=sandbox.web.WebRun())``)."""

    kind = "human"

    def __init__(
        self,
        interface: Interface = "terminal",
        *,
        port: int | None = None,
        decision_timeout_s: float | None = None,
        language: str = "en",
        pace_s: float = 0.0,
        host: SeatHost | None = None,
    ) -> None:
        if interface not in ("terminal", "browser"):
            raise AgentSetupError(
                f"HumanAgent: interface must be 'terminal' or 'browser', not {interface!r}"
            )
        self.interface = interface
        self.port = port
        self.decision_timeout_s = decision_timeout_s  # then the fallback, reason `timeout`
        self.language = language
        # browser: seconds the game waits after each event the page shows
        self.pace_s = pace_s
        self.host = host
        self._seat: Agent | None = None

    def attach(self, seating: Seating) -> None:
        if self.interface == "browser":
            # The host's server keeps one page (address) per seat for every game of a series.
            host = seating.host_for("a browser seat", self.host)
            self._seat = host.browser_agent(
                seating.seat, self.port, self.decision_timeout_s, self.language, self.pace_s
            )
        else:
            # Imported here: a browser seat needs no terminal prompt code.
            from sandbox.agents.human.terminal import HumanTerminalAgent

            self._seat = HumanTerminalAgent(
                seating.seat, decision_timeout_s=self.decision_timeout_s, language=self.language
            )
        self._seat.attach(seating)

    @property
    def seated_agent(self) -> Agent:
        """The terminal or browser seat itself, once seated (the run's web pages
        and host panel work with it directly)."""
        if self._seat is None:
            raise AgentSetupError("HumanAgent was not seated (attach) yet")
        return self._seat

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        if self._seat is None:
            raise AgentSetupError("HumanAgent was not seated (attach) before its first decision")
        return await self._seat.decide(ctx)

    def describe(self) -> dict[str, Any]:
        if self._seat is not None:
            return self._seat.describe()
        return {"kind": self.kind, "interface": self.interface}

    async def close(self) -> None:
        if self._seat is not None:
            await self._seat.close()
