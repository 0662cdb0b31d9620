"""Engine benchmark for every registered variant.

Prints, per variant:
- full games per second with random seats and with baseline seats (agents'
  time included), using the variant's default config: by the wall clock and by
  the process's CPU time (steadier on a shared machine). These games are played
  by a plain loop, as the runner drives a game, with no timer inside it;
- referee overhead per decision (median and p90, microseconds): time inside
  Game.pending + Game.validate + Game.submit (the step resolution it triggers
  included), excluding the agents' own thinking time, from the same random-seat
  games played again with a timer around each of those calls.

Run:  taskset -c 0 .venv/bin/python bench/bench_engine.py [--games N]
No timing is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.agents.baseline import baseline_bot
from sandbox.agents.simple import RandomAgent
from sandbox.core.game import Game
from sandbox.core.seat import Agent, AgentSetupError, DecisionContext, decide_now, rules_book
from sandbox.core.variant import Variant
from sandbox.games.registry import get_variant, variant_names


def _answer(agent: Agent, ctx: DecisionContext) -> Any:
    return decide_now(agent, ctx)


def play(variant: Variant[Any], config: Any, seed: int, make: Callable[[int], Agent]) -> int:
    """One game as the runner plays it (no timers); returns the number of decisions."""
    game = Game.new(variant, config, seed)
    agents = {s: make(seed * 100 + s) for s in game.seats}
    rules = rules_book(game)  # one per game, as the runner does
    decisions = 0
    while not game.over:
        for request in game.pending():
            ctx = DecisionContext.for_request(game, request, rules)
            answer = decide_now(agents[request.seat], ctx)
            if answer.payload is None:
                game.submit_fallback(request.id, answer.fallback_reason or "invalid")
            else:
                game.submit(request.id, answer.payload)
            decisions += 1
    return decisions


def play_timed(
    variant: Variant[Any], config: Any, seed: int, make: Callable[[int], Agent]
) -> list[float]:
    """One game with the referee's calls timed; returns its seconds per decision."""
    game = Game.new(variant, config, seed)
    agents = {s: make(seed * 100 + s) for s in game.seats}
    rules = rules_book(game)  # one per game, as the runner does
    costs: list[float] = []
    while not game.over:
        t0 = time.perf_counter()
        pending = game.pending()
        spent = time.perf_counter() - t0
        for request in pending:
            checks = [0.0]

            def validate(payload: object, rid: str = request.id, acc: list[float] = checks) -> Any:
                t = time.perf_counter()
                try:
                    return game.validate(rid, payload)
                finally:
                    acc[0] += time.perf_counter() - t

            # the seat's context as the runner builds it, its dry-run check timed as well
            ctx = DecisionContext.for_request(game, request, rules)
            ctx.validate = validate
            answer = _answer(agents[request.seat], ctx)
            t1 = time.perf_counter()
            if answer.payload is None:
                game.submit_fallback(request.id, answer.fallback_reason or "invalid")
            else:
                game.submit(request.id, answer.payload)
            submit = time.perf_counter() - t1
            costs.append(spent / len(pending) + checks[0] + submit)
    return costs


def baseline_factory(variant: str) -> Callable[[int], Agent] | None:
    try:
        baseline_bot(get_variant(variant), 0)
    except AgentSetupError:
        return None
    return lambda seed: baseline_bot(get_variant(variant), seed)


def bench(name: str, games: int) -> None:
    variant = get_variant(name)
    config = variant.parse_config({})
    for kind, make in (("random", RandomAgent), ("baseline", baseline_factory(name))):
        if make is None:
            print(f"{name:14s} {kind:8s} (no bot)")
            continue
        start, cpu_start = time.perf_counter(), time.process_time()
        decisions = sum(play(variant, config, seed, make) for seed in range(games))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(
            f"{name:14s} {kind:8s} {games / elapsed:8.1f} games/s  "
            f"{games / cpu:8.1f} games/s of CPU  ({decisions / games:.0f} decisions/game)"
        )
    timed = (play_timed(variant, config, seed, RandomAgent) for seed in range(games))
    us = sorted(c * 1e6 for costs in timed for c in costs)
    p90 = us[int(len(us) * 0.9)]
    print(
        f"{name:14s} referee  median {statistics.median(us):6.1f} us  p90 {p90:6.1f} us "
        f"per decision (pending+validate+submit, {len(us)} decisions)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--variant", choices=variant_names(), action="append")
    args = parser.parse_args()
    random.seed(0)
    for name in args.variant or variant_names():
        bench(name, args.games)


if __name__ == "__main__":
    main()
