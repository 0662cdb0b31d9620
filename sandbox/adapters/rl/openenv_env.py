"""OpenEnv (``openenv-core``, the ``rl`` extra): the games as an OpenEnv
environment, its HTTP/WebSocket server and its client (docs/frameworks.md,
"OpenEnv")::

    python -m sandbox.adapters.rl.openenv_env --variant killer --port 8001   # the server

    from sandbox.adapters.rl.openenv_env import SandboxAction, SandboxClient
    with SandboxClient(base_url="http://127.0.0.1:8001").sync() as env:
        result = env.reset(seed=3)
        while not result.done:
            text = my_model(result.observation.messages)   # the acting seat's chat
            result = env.step(SandboxAction(text=text))
        result.reward, result.observation.summary

One session plays one :class:`~sandbox.adapters.rl.episode.Episode` at a
time: the observation is the acting seat's whole chat (the sandbox's own
prompt, its repairs), the action the model's answer; the last step is
``done`` with the episode's reward (intermediate steps: reward 0) and its
``summary`` (seats, roles, results, tallies, the transcript's path).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from sandbox.adapters.extras import missing_extra

try:
    import uvicorn
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as err:  # the rl extra is optional: say which one
    raise missing_extra(__name__, "openenv-core", "rl", err) from err

from pydantic import Field

from sandbox.adapters.rl.episode import Episode

MAX_SESSIONS = 4


class SandboxAction(Action):  # type: ignore[misc]
    """The acting seat's answer: the decision's JSON object, as text."""

    text: str = Field(description="the model's answer to the last question")


class SandboxObservation(Observation):  # type: ignore[misc]
    seat: int | None = Field(default=None, description="the seat that must answer now")
    messages: list[dict[str, str]] = Field(
        default_factory=list, description="that seat's chat so far (role/content)"
    )
    summary: dict[str, Any] | None = Field(default=None, description="the episode, once done")


class SandboxState(State):  # type: ignore[misc]
    variant: str = ""
    seed: int | None = None
    seats: list[int] = Field(default_factory=list)


class SandboxEnvironment(Environment):  # type: ignore[misc]
    """One variant's games, one episode at a time (options: ``Episode``'s)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has an episode of its own

    def __init__(self, variant: str, **options: Any) -> None:
        super().__init__()
        self.episode = Episode(variant, **options)
        self._state = SandboxState(variant=variant)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> SandboxObservation:
        seed = 0 if seed is None else int(seed)
        self.episode.start(seed)
        self._state = SandboxState(
            episode_id=episode_id,
            variant=self.episode.variant,
            seed=seed,
            seats=sorted(self.episode.tallies),
        )
        return self._observe()

    def step(
        self, action: SandboxAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SandboxObservation:
        self.episode.answer(action.text)
        self._state.step_count += 1
        return self._observe()

    @property
    def state(self) -> SandboxState:
        return self._state

    def close(self) -> None:
        self.episode.close()

    def _observe(self) -> SandboxObservation:
        seat = self.episode.current_seat
        if seat is None:
            summary = self.episode.summary()
            return SandboxObservation(done=True, reward=summary["reward"], summary=summary)
        return SandboxObservation(seat=seat, messages=list(self.episode.chats[seat]), reward=0.0)


class SandboxClient(EnvClient[SandboxAction, SandboxObservation, SandboxState]):  # type: ignore[misc]
    """The client of a :func:`app` server (``.sync()`` for plain code)."""

    def _step_payload(self, action: SandboxAction) -> dict[str, Any]:
        return {"text": action.text}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SandboxObservation]:
        observation = SandboxObservation(
            **payload.get("observation", {}),
            done=payload.get("done", False),
            reward=payload.get("reward"),
        )
        return StepResult(
            observation=observation, reward=payload.get("reward"), done=observation.done
        )

    def _parse_state(self, payload: dict[str, Any]) -> SandboxState:
        return SandboxState(**payload)


def app(variant: str, max_sessions: int = MAX_SESSIONS, **options: Any) -> Any:
    """The OpenEnv server's FastAPI app for ``variant`` (``options``: an
    ``Episode``'s, e.g. ``opponents="fake"``, ``transcripts=None``)."""
    factory: Callable[[], SandboxEnvironment] = lambda: SandboxEnvironment(variant, **options)  # noqa: E731
    return create_app(
        factory,
        SandboxAction,
        SandboxObservation,
        env_name=f"sandbox-{variant}",
        max_concurrent_envs=max_sessions,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Serve one variant on loopback (Ctrl-C stops it)."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.adapters.rl.openenv_env")
    parser.add_argument(
        "--variant", required=True, help="a registered variant, e.g. from `sandbox rules`"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--opponents", default="baseline", help="baseline, random, fake, ...")
    parser.add_argument("--side", default=None, help="play every seat of this side")
    parser.add_argument("--transcripts", default="transcripts", help="folder ('' : none)")
    args = parser.parse_args(argv)
    served = app(
        args.variant,
        opponents=args.opponents,
        side=args.side,
        transcripts=args.transcripts or None,
    )
    uvicorn.run(served, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
