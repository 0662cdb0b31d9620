"""Seats a game file's agents: the last ``[[agent]]`` entry selecting a seat wins."""

from __future__ import annotations

from collections.abc import Mapping

from sandbox.agents.human.seat import HumanAgent
from sandbox.agents.llm.agent import LLMAgent
from sandbox.core.rng import derive_rng
from sandbox.core.seat import Agent, AgentSetupError, SeatHost, Seating, seat_seed
from sandbox.session.agent_specs import AgentSpec
from sandbox.session.gamefile import LoadedConfig, role_matches

__all__ = [
    "AgentSetupError",
    "branch_seat_seed",
    "build_agents",
    "seat_agent",
    "seat_seed",
    "spec_for",
]


def branch_seat_seed(game_seed: int, branch_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in what-if branch ``branch_seed`` of a game
    (sandbox.session.whatif); branch 0 is the game itself: :func:`seat_seed`."""
    if branch_seed == 0:
        return seat_seed(game_seed, seat)
    return derive_rng(game_seed, "branch", branch_seed, seat).getrandbits(63)


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
    loaded: LoadedConfig,
    roles: Mapping[int, str],
    game_seed: int,
    branch_seed: int = 0,
    host: SeatHost | None = None,
) -> dict[int, Agent]:
    """One seated agent per seat, from the spec that selects it; ``host``: the
    web pages of the run, for the seats that need them (a person's page, a
    program's endpoint)."""
    return {
        seat: seat_agent(loaded, spec_for(loaded, seat, role), seat, game_seed, branch_seed, host)
        for seat, role in sorted(roles.items())
    }


def seat_agent(
    loaded: LoadedConfig,
    spec: AgentSpec,
    seat: int,
    game_seed: int,
    branch_seed: int = 0,
    host: SeatHost | None = None,
) -> Agent:
    """``spec``'s agent for ``seat``, built and seated (``attach``) by ``host``; one
    that cannot be is an AgentSetupError naming the seat. In a what-if branch
    (``branch_seed`` > 0) every seat draws from the branch's own seed, and a model
    seat sends a sampling seed derived from it on every call."""
    try:
        seed = branch_seat_seed(game_seed, branch_seed, seat)
        agent = spec.build(seat, seed, loaded.file.llm)
        agent.attach(Seating(seat, game_seed, loaded.variant, host))
        if branch_seed and isinstance(agent, LLMAgent):
            agent.sample_with(seed)
    except AgentSetupError as err:
        raise AgentSetupError(f"seat {seat}: {err}") from None
    if isinstance(agent, HumanAgent):
        return agent.seated_agent  # the page or prompt itself, as the web run expects
    return agent
