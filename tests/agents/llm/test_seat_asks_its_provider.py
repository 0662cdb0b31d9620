"""The llm seat asks its provider (issue 36, item 4): a provider the seat
has never heard of changes the rung, the window, the request fields and the
concurrency of the seat's calls, with nothing in the seat changed."""

from __future__ import annotations

from typing import Any

from sandbox.agents.llm.agent import LLMAgent
from sandbox.core.game import Game
from sandbox.core.seat import Seating
from sandbox.models.capabilities import Rung
from sandbox.models.endpoints import Endpoint, Target
from sandbox.models.fake import FakeLLMServer
from sandbox.models.providers.fake import FakeProvider
from tests.agents.llm.conftest import FAST_RETRY, TOY, context, llm_spec, toy_loaded


class PlainWords(FakeProvider):
    """The fake server, as a provider that puts the schema in the prompt,
    has a small window, tags each call and serves one call at a time."""

    def best_rung(self, endpoint: Endpoint, thinking: bool = False) -> Rung:
        return "prompt"

    def context_window(self, endpoint: Endpoint) -> int | None:
        return 4096

    def request_fields(self, seat: int | None) -> dict[str, Any]:
        return {"tag": f"seat-{seat}"}

    def concurrency(self, configured: int) -> int:
        return 1


async def test_a_new_provider_changes_the_calls_without_touching_the_seat(
    fake: FakeLLMServer,
) -> None:
    spec = llm_spec(fake, "legal-random")
    game = Game.new(TOY, toy_loaded(spec).game_config, 1)
    request = game.pending()[0]
    target = Target("fake/legal-random", fake.base_url)
    agent = LLMAgent(target.model, api_base=fake.base_url, provider=PlainWords(target))
    agent.settings = agent.settings.override({**FAST_RETRY, "timeout_s": 2.0})
    agent.attach(Seating(request.seat, 1, TOY))
    try:
        answer = await agent.decide(context(game, request))
        assert agent._window == 4096  # the provider's window, none configured
        client: Any = agent._client(await agent._resolve(), *_format_args(agent, game))
        assert client.concurrency == 1
    finally:
        await agent.close()
    assert answer.fallback_reason is None
    assert answer.calls[0]["mode"] == "prompt"  # the provider's rung under "auto"
    body = fake.requests[-1]
    assert body["tag"] == f"seat-{request.seat}"
    assert "response_format" not in body  # the prompt rung sends no format


def _format_args(agent: LLMAgent, game: Game) -> tuple[Any, ...]:
    request = game.pending()[0]
    fmt = agent._format(request, None, Endpoint("m", None))
    return fmt, [], None, request.id
