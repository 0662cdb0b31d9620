"""Baseline-bot benchmark: how games between baseline seats end.

Prints, per variant and player count: the share of wins per side (Killer:
police side / killers / draw; Four Factions: per faction win/lose/draw), the
share of each termination reason, each with a 95% Wilson interval, the number
of fallbacks (answers the bot could not make legal) and games per second.

Run:  .venv/bin/python bench/bench_bots.py [--games N] [--variant killer]
      [--players 11 12 ...]
Games are seeded 0..N-1 per player count, so a run is reproducible.
No figure is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.agents.base import Agent, AgentAnswer, DecisionContext, decide_now
from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.variant import Outcome
from sandbox.games.registry import get_variant
from sandbox.play.seating import seat_seed

Z95 = 1.96


@dataclass
class Tally:
    games: int = 0
    fallbacks: int = 0
    seconds: float = 0.0
    sides: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)


def wilson(hits: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 0.0
    p = hits / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _answer(agent: Agent, ctx: DecisionContext) -> AgentAnswer:
    """Drive a bot synchronously (bots never really await)."""
    return decide_now(agent, ctx)


def play(variant_name: str, raw_config: dict[str, Any], seed: int) -> tuple[Game, int]:
    """One game of baseline seats; returns the finished game and its fallback count."""
    variant = get_variant(variant_name)
    game = Game.new(variant, variant.parse_config(raw_config), seed)
    agents = {s: baseline_bot(variant_name, seat_seed(seed, s)) for s in game.seats}
    fallbacks = 0
    while not game.over:
        for request in game.pending():
            ctx = DecisionContext.for_request(game, request)
            answer = _answer(agents[request.seat], ctx)
            if answer.payload is None:
                fallbacks += 1
                game.submit_fallback(request.id, answer.fallback_reason or "invalid")
            else:
                game.submit(request.id, answer.payload)
    return game, fallbacks


def killer_sides(game: Game, outcome: Outcome) -> list[str]:
    roles = game.roles()
    killer_result = next(r for s, r in outcome.results.items() if roles[s] == "killer")
    return {"win": ["killer"], "lose": ["police side"]}.get(killer_result, ["draw"])


def faction_sides(game: Game, outcome: Outcome) -> list[str]:
    roles = game.roles()
    seen: dict[str, str] = {}
    for seat, result in outcome.results.items():
        seen[roles[seat].split("/")[0]] = result
    return [f"{faction} {result}" for faction, result in sorted(seen.items())]


def run(variant_name: str, raw: dict[str, Any], games: int) -> Tally:
    sides = killer_sides if variant_name == "killer" else faction_sides
    tally = Tally()
    start = time.perf_counter()
    for seed in range(games):
        game, fallbacks = play(variant_name, raw, seed)
        outcome = game.outcome()
        assert outcome is not None
        tally.games += 1
        tally.fallbacks += fallbacks
        tally.reasons[outcome.reason] += 1
        tally.sides.update(sides(game, outcome))
    tally.seconds = time.perf_counter() - start
    return tally


def _rows(label: str, counts: Counter[str], n: int) -> Iterable[str]:
    for key, hits in sorted(counts.items()):
        low, high = wilson(hits, n)
        yield f"    {label:7s} {key:24s} {hits / n:6.1%}  [{low:5.1%}, {high:5.1%}]  ({hits})"


def report(title: str, tally: Tally) -> None:
    rate = tally.games / tally.seconds if tally.seconds else 0.0
    print(f"{title}: {tally.games} games, {tally.fallbacks} fallbacks, {rate:.1f} games/s")
    for line in _rows("outcome", tally.sides, tally.games):
        print(line)
    for line in _rows("reason", tally.reasons, tally.games):
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per configuration")
    parser.add_argument("--variant", choices=["killer", "four_factions"], action="append")
    parser.add_argument("--players", type=int, nargs="*", default=list(range(11, 17)))
    args = parser.parse_args()
    for name in args.variant or ["killer", "four_factions"]:
        if name == "four_factions":
            report("four_factions (16 seats)", run(name, {}, args.games))
            continue
        total = Tally()
        for players in args.players:
            tally = run(name, {"players": players}, args.games)
            report(f"killer {players} players", tally)
            total.games += tally.games
            total.fallbacks += tally.fallbacks
            total.seconds += tally.seconds
            total.sides.update(tally.sides)
            total.reasons.update(tally.reasons)
        report("killer all player counts", total)


if __name__ == "__main__":
    main()
