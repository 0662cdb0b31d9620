"""The Python API: make a game, seat agents, play it, read it back.

>>> from sandbox import BaselineAgent, new_game, play_sync
>>> game = new_game("killer", seed=3, players=11)
>>> result = play_sync(game, lambda seat, role: BaselineAgent(), transcript=None)
>>> sorted(result.by_role())
['civilian', 'killer', 'police']

``play`` is the async form; ``play_sync`` also works inside a running event loop
(a Jupyter cell). Every agent is closed when the game ends, however it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox.core.errors import ConfigError
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.seat import Agent, AgentSetupError, Seating
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.driver import blocking
from sandbox.session.gamefile import describe_error
from sandbox.session.header import (
    random_seed,
    sandbox_version,
    scrub,
    transcript_path,
    utc_now,
)
from sandbox.session.play import PlayResult, close_all, play_seated
from sandbox.transcript import TranscriptWriter
from sandbox.transcript.writer import closed_on_error

# Who plays each seat: a mapping seat → agent, or a function (seat, role) → agent
# that is called once per seat (each seat needs an agent of its own).
Seats = Mapping[int, Agent] | Callable[[int, str], Agent]
PLAYED_FROM_PYTHON = "python"


def new_game(variant: str, seed: int | None = None, **rules: Any) -> Game:
    """A new game of ``variant`` ("killer", "four_factions"), roles dealt from
    ``seed`` (a random one when None). ``rules`` are the variant's rulings, as in
    a game file's ``[rules]`` table (e.g. ``players=12`` for Killer)."""
    if variant not in variant_names():
        raise ConfigError(f"unknown variant {variant!r}; known: {', '.join(variant_names())}")
    rules_of = get_variant(variant)
    try:
        config = rules_of.parse_config(rules)
    except ValidationError as err:
        raise ConfigError(describe_error(err, section="rules")) from None
    return Game.new(rules_of, config, random_seed() if seed is None else seed)


async def play(
    game: Game,
    seats: Seats,
    transcript: Path | str | None = "transcripts",
    *,
    abort_share: float | None = 0.25,
    on_event: Callable[[int, Event], None] | None = None,
) -> PlayResult:
    """Play ``game`` to its end with ``seats``, writing its transcript into the folder
    ``transcript`` (None: no file). Returns the result: ``outcome``, ``by_role()``,
    ``by_seat()``, ``stats`` and ``transcript_path``."""
    if game.over:
        raise ValueError("this game is already over")
    agents = seat_agents(game, seats)
    try:
        writer = _writer(game, agents, transcript)
    except BaseException:
        await close_all(agents)  # the seats were attached: release them all the same
        raise
    with writer or nullcontext():
        return await play_seated(game, agents, writer, abort_share=abort_share, on_event=on_event)


play_sync = blocking(
    play,
    "play_sync",
    ":func:`play` from synchronous code: a script, or a notebook cell whose event "
    "loop is already running.",
)


def seat_agents(game: Game, seats: Seats) -> dict[int, Agent]:
    """One seated agent per seat of ``game``; AgentSetupError if a seat has none or
    one agent object is given two seats."""
    roles = game.roles()
    if callable(seats):
        agents = {seat: seats(seat, roles[seat]) for seat in game.seats}
    else:
        agents = dict(seats)
    missing = [seat for seat in game.seats if seat not in agents]
    if missing:
        raise AgentSetupError(f"no agent for seat(s) {', '.join(map(str, missing))}")
    extra = sorted(set(agents) - set(game.seats))
    if extra:
        raise AgentSetupError(f"seat(s) {', '.join(map(str, extra))} are not in this game")
    if len({id(a) for a in agents.values()}) < len(agents):
        raise AgentSetupError("one agent object plays two seats; give each seat its own")
    for seat, agent in sorted(agents.items()):
        agent.attach(Seating(seat, game.seed, game.variant))
    return agents


def _writer(
    game: Game, agents: Mapping[int, Agent], out: Path | str | None
) -> TranscriptWriter | None:
    if out is None:
        return None
    writer = TranscriptWriter(transcript_path(Path(out), game.variant.name, game.seed))
    with closed_on_error(writer):  # a refused header (full disk) keeps no lock behind
        writer.header(
            {
                "variant": game.variant.name,
                "seed": game.seed,
                "name": None,
                # The game file equivalent of the rules; agents were Python objects, so
                # `sandbox resume`/`fork` ask for a game file naming the seats' agents.
                "config": {"variant": game.variant.name},
                "game_config": game.config.model_dump(mode="json"),
                "roles": {str(s): r for s, r in sorted(game.roles().items())},
                "agents": {str(s): scrub(a.describe()) for s, a in sorted(agents.items())},
                "played_from": PLAYED_FROM_PYTHON,
                "sandbox_version": sandbox_version(),
                "started": utc_now(),
            }
        )
    return writer  # the runner writes the events, from the first one
