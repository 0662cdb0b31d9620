"""Reference-bot benchmark (issue 37, item 5): the deducing bot against the
baseline, side by side on the same seeds.

For each variant and each side, N seeded games are played twice: once with
every seat a baseline bot, once with that side's seats played by the deducing
bot at each of ``--levels`` (the rest of the table baseline). Printed: the side's win
rate in both, each with a 95% Wilson interval, and the CPU seconds per game; then
the CPU per game of a table where every seat is a deducing bot at the top level.

Run:  .venv/bin/python bench/bench_reference.py [--games 200] [--levels 1 2 3]
      [--variant werewolf] [--language en] [--first-seed 0]
With ``--calibration``: the village side's belief at level 3, its Brier score by day
beside a flat guess, and its calibration (Werewolf and Killer).
Games are seeded first-seed.., so a run repeats exactly. Reports only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


Probe = Callable[[Game, int, Any], None]  # (game, seat, its bot) after each of its votes


def play(
    variant_name: str,
    seed: int,
    deducing: Callable[[str], bool],
    level: int,
    language: str,
    probe: Probe | None = None,
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
            if probe is not None and request.decision == "vote":
                probe(game, request.seat, agents[request.seat])
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


def calibration(name: str, seeds: range, level: int, language: str) -> None:
    """The village side's belief at each of its votes: the Brier score of
    P(hidden) over the living other seats it does not know, by day, beside the
    Brier of the flat guess (every such seat at the mean chance: no deduction);
    then calibration in five bins (said -> seen, count)."""
    hidden = {"werewolf": {"werewolf"}, "killer": {"killer"}}[name]
    by_day: dict[int, list[tuple[float, float]]] = {}
    bins: list[list[int]] = [[0, 0] for _ in range(5)]

    def probe(game: Game, seat: int, bot: Any) -> None:
        mind, roles = getattr(bot, "mind", None), game.roles()
        if mind is None or mind.belief is None:
            return
        view = game.view(seat)
        seats = [s for s in view.public.get("living", []) if s != seat and s not in mind.known]
        if not seats:
            return
        said = {s: mind.hidden(s) for s in seats}
        flat = sum(said.values()) / len(seats)
        truth = {s: float(roles[s] in hidden) for s in seats}
        ours = sum((said[s] - truth[s]) ** 2 for s in seats) / len(seats)
        guess = sum((flat - truth[s]) ** 2 for s in seats) / len(seats)
        by_day.setdefault(int(view.public.get("day", 0)), []).append((ours, guess))
        for s in seats:
            k = min(4, int(said[s] * 5))
            bins[k][0] += 1
            bins[k][1] += int(truth[s])

    for seed in seeds:
        play(name, seed, lambda r: r not in hidden, level, language, probe)
    for day, pairs in sorted(by_day.items()):
        ours = sum(p[0] for p in pairs) / len(pairs)
        guess = sum(p[1] for p in pairs) / len(pairs)
        print(f"{name:14s} day {day:2d}  Brier {ours:.3f}  flat {guess:.3f}  ({len(pairs)} votes)")
    cells = [
        f"{k / 5:.1f}-{(k + 1) / 5:.1f}: {n and hits / n:.2f} ({n})"
        for k, (n, hits) in enumerate(bins)
    ]
    print(f"{name:14s} calibration  " + "  ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--levels", type=int, nargs="+", default=[3])
    parser.add_argument(
        "--variant", action="append", choices=["werewolf", "killer", "four_factions"]
    )
    parser.add_argument("--language", default="en")
    parser.add_argument(
        "--calibration", action="store_true", help="the village belief's Brier score by day"
    )
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    if args.calibration:
        for name in args.variant or ["werewolf", "killer"]:
            calibration(name, seeds, max(args.levels), args.language)
        return
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
