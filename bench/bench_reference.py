"""Reference-bot benchmark (issue 37, item 5): the deducing bot against the
baseline, side by side on the same seeds.

For each variant and each side, N seeded games are played twice: once with
every seat a baseline bot, once with that side's seats played by the deducing
bot at each of ``--levels`` (the rest of the table baseline). Printed: the side's win
rate in both, each with a 95% Wilson interval, and the CPU seconds per game; then
the CPU per game of a table where every seat is a deducing bot at the top level.

Run:  .venv/bin/python bench/bench_reference.py [--games 200] [--levels 1 2 3]
      [--variant werewolf] [--language en] [--first-seed 0]
Games are seeded first-seed.., so a run repeats exactly. Reports only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_bots import wilson

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.seat import Agent, DecisionContext, decide_now
from sandbox.games.registry import get_variant
from sandbox.session.seating import seat_seed

# variant -> side name -> (is a role on that side, did that side win)
Side = tuple[Callable[[str], bool], Callable[[str], bool]]


def _sides(variant: str) -> dict[str, Callable[[str], bool]]:
    if variant == "werewolf":
        return {"village": lambda r: r != "werewolf", "werewolves": lambda r: r == "werewolf"}
    if variant == "killer":
        return {"police side": lambda r: r != "killer", "killers": lambda r: r == "killer"}
    return {
        f: (lambda r, f=f: r.split("/")[0] == f) for f in ("wolves", "spies", "justice", "army")
    }


def play(
    variant_name: str, seed: int, deducing: Callable[[str], bool], level: int, language: str
) -> tuple[bool, float, Game]:
    variant = get_variant(variant_name)
    game = Game.new(variant, variant.parse_config({}), seed)
    roles = game.roles()
    agents: dict[int, Agent] = {}
    for s in game.seats:
        bot = baseline_bot(variant, seat_seed(seed, s), language)
        if level and deducing(roles[s]):
            bot.at_level(level)  # type: ignore[attr-defined]
        agents[s] = bot
    start = time.process_time()
    while not game.over:
        for request in game.pending():
            answer = decide_now(agents[request.seat], DecisionContext.for_request(game, request))
            if answer.payload is None:
                game.submit_fallback(request.id, answer.fallback_reason or "invalid")
            else:
                game.submit(request.id, answer.payload)
    outcome = game.outcome()
    assert outcome is not None
    won = any(outcome.results.get(s) == "win" for s in game.seats if deducing(roles[s]))
    return won, time.process_time() - start, game


def cell(name: str, on_side: Callable[[str], bool], level: int, seeds: range, language: str) -> str:
    """One side at one level over ``seeds``: win rate, Wilson interval, CPU per game."""
    wins, cpu = 0, 0.0
    for seed in seeds:
        won, seconds, _ = play(name, seed, on_side, level, language)
        wins += won
        cpu += seconds
    n = len(seeds)
    low, high = wilson(wins, n)
    label = "baseline" if level == 0 else f"level {level}"
    return f"{label}: {wins / n:5.1%} [{low:5.1%}, {high:5.1%}] {1000 * cpu / n:4.0f} ms/game"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--levels", type=int, nargs="+", default=[3])
    parser.add_argument(
        "--variant", action="append", choices=["werewolf", "killer", "four_factions"]
    )
    parser.add_argument("--language", default="en")
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    for name in args.variant or ["werewolf", "killer", "four_factions"]:
        for side, on_side in _sides(name).items():
            cells = [
                cell(name, on_side, level, seeds, args.language) for level in (0, *args.levels)
            ]
            print(f"{name:14s} {side:12s}  " + "  ".join(cells), flush=True)
        top = max(args.levels)  # the cost of a whole table of deducing bots
        cpu = sum(play(name, seed, lambda _: True, top, args.language)[1] for seed in seeds)
        print(f"{name:14s} every seat at level {top}: {1000 * cpu / len(seeds):4.0f} ms CPU/game")


if __name__ == "__main__":
    main()
