"""PettingZoo: an AEC environment per variant (the ``envs`` extra).

>>> from sandbox.adapters.pettingzoo import env
>>> e = env("killer", transcript=None)
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     done = terminated or truncated
...     e.step(None if done else e.action_space(agent).sample(obs["action_mask"]))
>>> e.close()

The encoding (docs/frameworks.md, "PettingZoo"):

- agents are ``seat_<n>``, the seats driven from outside (default: all);
  the other seats are played inside by normal agents (``opponents``, a game
  file, else the baseline bot). An agent stays until the game ends, dead or
  alive: the reward comes at the end (win 1, draw 0, loss -1 by default).
- observation: ``{"text": the LLM seat's prompt (system, a blank line, user,
  then the referee's refusals of earlier answers, if any), "action_mask":
  int8[MOVES]}``; only the seat to act has one (the others get an empty text
  and a zero mask). ``infos[agent]["observation"]`` holds the whole
  observation as data (``sandbox.agents.observation``: view, request, field
  masks, moves).
- action: ``Discrete(MOVES)``, the index of one of the observation's
  ``moves`` (whole answers from the discrete fields, free text empty); the
  mask marks the indices that are moves. Free text goes as a ``str`` action
  instead: the decision's JSON object (``{"speech": "...", ...}``, a
  ``reasoning`` key allowed), checked by the referee like any answer.
- an illegal action (an index that is not a move, an answer the referee
  refuses) leaves the same agent to act, with the refusal in its text and in
  ``infos[agent]["errors"]``; after ``max_attempts`` answers the seat gets
  the recorded fallback (reason ``invalid``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, ClassVar, Unpack

import numpy as np

from sandbox.adapters.extras import missing_extra

try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
except ImportError as err:  # the envs extra is optional: say which one
    raise missing_extra(__name__, "pettingzoo and gymnasium", "envs", err) from err

from sandbox.adapters.step import StepOptions, SteppedGame
from sandbox.adapters.validity import SeatTally, result_info
from sandbox.agents.llm.parse import render_repair
from sandbox.agents.observation import MAX_MOVES
from sandbox.games.registry import variant_names
from sandbox.session.api import new_game

MOVES = MAX_MOVES
# The longest observation text the space admits (a long game's prompt is
# well under a tenth of it); characters: the Basic Multilingual Plane, so any
# prompt in any language fits (a character beyond it is sent as U+FFFD).
TEXT_CHARS = 4_000_000
_BMP = frozenset(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)
REPLACEMENT = "\ufffd"

Action = int | np.integer[Any] | str | Mapping[str, Any] | None


class SandboxAECEnv(AECEnv[str, dict[str, Any], Action]):  # type: ignore[misc]
    """One variant's games as a PettingZoo AEC environment (see the module
    docstring). The keyword arguments are :class:`SteppedGame`'s; ``seed``:
    where the seeds of resets without one start (None: a random start)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        variant: str,
        *,
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        **options: Unpack[StepOptions],
    ) -> None:
        super().__init__()
        self.metadata = {**type(self).metadata, "name": f"sandbox_{variant}_v0"}  # type: ignore[misc]
        self.render_mode = render_mode
        self.stepped = SteppedGame(variant, rules=rules, **options)
        external = options.get("external")
        seats = list(new_game(variant, 0, **dict(rules or {})).seats)
        if external is not None and not callable(external):
            seats = [s for s in seats if s in set(external)]
        self.possible_agents = [seat_name(s) for s in seats]
        self.agents: list[str] = []
        observation = gymnasium.spaces.Dict(
            {
                "text": gymnasium.spaces.Text(TEXT_CHARS, min_length=0, charset=_BMP),
                "action_mask": gymnasium.spaces.Box(0, 1, (MOVES,), np.int8),
            }
        )
        # one observation space for all (it is never sampled by the env); an
        # action space per agent, each seeded on its own
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {a: gymnasium.spaces.Discrete(MOVES) for a in self.possible_agents}
        self._seeds = random.Random(seed) if seed is not None else random.SystemRandom()
        self._cache: tuple[tuple[str, str, int], dict[str, Any]] | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def transcript_path(self) -> Any:
        """The transcript of the current (or last) game; None without one."""
        return self.stepped.transcript_path

    # ------------------------------------------------------------------ AEC
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)  # later resets without a seed follow from it
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.stepped.reset(game_seed)
        self._cache = None
        self.agents = [seat_name(s) for s in self.stepped.external_seats]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def step(self, action: Action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if action is None:
            raise ValueError(f"{agent} must act: None is only for agents that are done")
        self.stepped.step(action, seat_number(agent))
        self._cache = None
        self._select()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = seat_number(agent)
        if self.stepped.over or self.stepped.current_seat() != seat:
            return {"text": "", "action_mask": np.zeros(MOVES, np.int8)}
        full = self._observation(agent)
        mask = np.zeros(MOVES, np.int8)
        mask[: len(full["moves"])] = 1
        return {"text": observation_text(full), "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or not self.agents:
            return None
        return str(self.observe(self.agent_selection)["text"])

    def close(self) -> None:
        self.stepped.close()

    # -------------------------------------------------------------- internal
    def _select(self) -> None:
        """Point at the seat to act, or, once the game is over, give every agent
        its reward and end them all."""
        if self.stepped.over:
            rewards = self.stepped.rewards()
            sides, roles = self.stepped.sides(), self.stepped.roles()
            outcome = self.stepped.outcome
            tallies = self.stepped.tallies()
            for agent in self.agents:
                seat = seat_number(agent)
                self.rewards[agent] = rewards.get(seat, 0.0)
                self.terminations[agent] = True
                self.infos[agent] = {
                    "role": roles.get(seat),
                    "side": sides.get(seat),
                    "result": outcome.results.get(seat) if outcome else None,
                    "outcome": outcome.reason if outcome else None,
                    **result_info(tallies.get(seat, SeatTally())),
                }
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        current = self.stepped.current_seat()
        assert current is not None
        self.agent_selection = seat_name(current)
        full = self._observation(self.agent_selection)
        for agent in self.agents:
            self.infos[agent] = {}
        self.infos[self.agent_selection] = {"observation": full, "errors": full["errors"]}

    def _observation(self, agent: str) -> dict[str, Any]:
        """The stepped game's observation of ``agent``, once per question and attempt."""
        seat = seat_number(agent)
        question = self.stepped.desk.question(seat)
        key = (agent, str(question.ctx.request.id), question.attempts)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self.stepped.observation(seat))
        return self._cache[1]


def observation_text(observation: Mapping[str, Any]) -> str:
    """The text observation: the LLM seat's two messages, then a repair
    message per refused answer (in the seat's language), within the space's
    characters."""
    prompt = observation["prompt"]
    parts = [prompt["system"], prompt["user"]]
    parts += [render_repair(error, observation["language"]) for error in observation["errors"]]
    text = "\n\n".join(parts)
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS - 1] + REPLACEMENT
    return "".join(c if c in _BMP else REPLACEMENT for c in text)


def seat_name(seat: int) -> str:
    return f"seat_{seat}"


def seat_number(agent: str) -> int:
    return int(agent.rpartition("_")[2])


def raw_env(variant: str, **kwargs: Any) -> SandboxAECEnv:
    """The environment itself, without PettingZoo's order check."""
    return SandboxAECEnv(variant, **kwargs)


def env(variant: str, **kwargs: Any) -> OrderEnforcingWrapper[str, dict[str, Any], Action]:
    """The environment of ``variant`` in PettingZoo's order-enforcing wrapper."""
    return OrderEnforcingWrapper(raw_env(variant, **kwargs))


def envs() -> dict[str, Callable[..., OrderEnforcingWrapper[str, dict[str, Any], Action]]]:
    """Each installed variant's environment constructor, by variant name."""
    return {name: partial(env, name) for name in variant_names()}
