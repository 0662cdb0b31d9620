"""Seats a game file's agents: the last ``[[agent]]`` entry selecting a seat wins."""

from __future__ import annotations

from collections.abc import Mapping

from sandbox.agents.base import Agent, AgentSetupError, seat_seed
from sandbox.agents.human.seat import HumanAgent
from sandbox.play.gamefile import AgentSpec, LoadedConfig, role_matches

__all__ = ["AgentSetupError", "build_agents", "seat_agent", "seat_seed", "spec_for"]


def spec_for(loaded: LoadedConfig, seat: int, role: str) -> AgentSpec:
    """The last [[agent]] entry that selects ``seat`` (by seat or role), else the default."""
    chosen = loaded.file.default_agent
    for spec in loaded.file.agent:
        if (spec.seats is not None and seat in spec.seats) or (
            spec.role is not None and role_matches(spec.role, role)
        ):
            chosen = spec
    return chosen


def build_agents(
    loaded: LoadedConfig, roles: Mapping[int, str], game_seed: int
) -> dict[int, Agent]:
    """One seated agent per seat, from the spec that selects it."""
    return {
        seat: seat_agent(loaded, spec_for(loaded, seat, role), seat, game_seed)
        for seat, role in sorted(roles.items())
    }


def seat_agent(loaded: LoadedConfig, spec: AgentSpec, seat: int, game_seed: int) -> Agent:
    """``spec``'s agent for ``seat``, built and seated (``attach``); one that cannot
    be is an AgentSetupError naming the seat."""
    try:
        agent = spec.build(seat, seat_seed(game_seed, seat), loaded.file.llm)
        agent.attach(seat, game_seed, loaded.variant.name)
    except AgentSetupError as err:
        raise AgentSetupError(f"seat {seat}: {err}") from None
    if isinstance(agent, HumanAgent):
        return agent.seated_agent  # the page or prompt itself, as the web run expects
    return agent
