"""Builds each seat's agent from a validated game file."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from sandbox.agents.base import Agent
from sandbox.agents.simple import RandomAgent, ScriptedAgent
from sandbox.config import AgentSpec, LoadedConfig, role_matches
from sandbox.core.rng import derive_rng


class AgentSetupError(Exception):
    """An agent that cannot be built (e.g. no baseline bot for a variant)."""


def spec_for(loaded: LoadedConfig, seat: int, role: str) -> AgentSpec:
    """The last [[agent]] entry that selects ``seat`` (by seat or role), else the default."""
    chosen = loaded.file.default_agent
    for spec in loaded.file.agent:
        if (spec.seats is not None and seat in spec.seats) or (
            spec.role is not None and role_matches(spec.role, role)
        ):
            chosen = spec
    return chosen


__all__ = ["AgentSetupError", "build_agent", "build_agents", "role_matches", "spec_for"]


def seat_seed(game_seed: int, seat: int) -> int:
    return derive_rng(game_seed, "agent", seat).getrandbits(63)


def build_agents(
    loaded: LoadedConfig, roles: Mapping[int, str], game_seed: int
) -> dict[int, Agent]:
    return {
        seat: build_agent(loaded, spec_for(loaded, seat, role), seat, seat_seed(game_seed, seat))
        for seat, role in sorted(roles.items())
    }


def build_agent(loaded: LoadedConfig, spec: AgentSpec, seat: int, seed: int) -> Agent:
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "scripted":
        return ScriptedAgent(spec.decisions, spec.then, seed, spec.skip_unlisted)
    if spec.kind == "baseline":
        return _baseline(loaded.variant.name, seed)
    if spec.kind == "human":
        human = importlib.import_module("sandbox.agents.human")
        agent: Agent = human.make_human_agent(loaded, spec, seat)
        return agent
    llm = importlib.import_module("sandbox.agents.llm.agent")
    made: Agent = llm.make_llm_agent(loaded, spec, seat, seed)
    return made


def _baseline(variant: str, seed: int) -> Agent:
    try:
        module = importlib.import_module(f"sandbox.agents.bots.{variant}")
    except ModuleNotFoundError:
        raise AgentSetupError(f"no baseline bot for variant {variant!r}") from None
    bot: Agent = module.BaselineBot(seed)
    return bot
