"""Reference-bot benchmark (issue 37, item 5): the deducing bot against the
baseline, side by side on the same seeds.

For each variant and each side, N seeded games are played twice: once with
every seat a baseline bot, once with that side's seats played by the deducing
bot at each of ``--levels`` (the rest of the table baseline). Printed: the side's win
rate in both, each with a 95% Wilson interval, and the CPU seconds per game; then
the CPU per game of a table where every seat is a deducing bot at the top level.

Run:  .venv/bin/python bench/bench_reference.py [--games 200] [--levels 1 2 3]
      [--variant werewolf] [--language en] [--first-seed 0]
With ``--matrix``: the levels against each other (``--every-pair``: all pairs,
else adjacent ones; level 0, the baseline, always among them; ``--pair A B``: only
those pairs). ``--set LEVEL FIELD VALUE`` changes one setting of every ladder that has it (a
``Level`` field: Werewolf's, Killer's and Four Factions' ladders; a ``Tactics`` field:
Four Factions') for the run (trying settings; the figures are the shipped ones').
Each pair's line shows, per side, the lower level's own rate in the same seats (every
seat at it, the same seeds) and the opposing side's rate in the same games.
With ``--mirror``: each of ``--levels`` against itself (every side's win rate).
With ``--exploit``: a scripted lone fake seer (Werewolf) or police (Killer) claim
against a table of baseline bots and of each level: how often it works.
With ``--calibration``: the village side's belief at level 3, its Brier score by day
beside a flat guess, and its calibration (Werewolf and Killer).
With ``--behaviour FILE``: every deducing seat weighs evidence with the likelihood
parameters in FILE (behaviour.toml's format, e.g. bench/fit_behaviour.py's ``--write``),
all of them, in place of the shipped ones and the table's own (trying a fit).
Games are seeded first-seed.., so a run repeats exactly. Reports only.
"""

from __future__ import annotations

import argparse
import dataclasses
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
from sandbox.deduction.likelihood import load_behaviour
from sandbox.games.four_factions import bot as four_factions_bot
from sandbox.games.four_factions.config import rival_of
from sandbox.games.four_factions.tactics import LADDER as FOUR_FACTIONS_LADDER
from sandbox.games.four_factions.tactics import TACTICS as FOUR_FACTIONS_TACTICS
from sandbox.games.killer.bot import LADDER as KILLER_LADDER
from sandbox.games.killer.bot import BaselineBot as KillerBot
from sandbox.games.registry import get_variant
from sandbox.games.werewolf.bot import LADDER as WEREWOLF_LADDER
from sandbox.games.werewolf.bot import BaselineBot as WerewolfBot
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
COST: dict[int, tuple[int, float]] = {}  # level -> (decisions, CPU seconds), summed


def play(
    variant_name: str,
    seed: int,
    deducing: Callable[[str], bool],
    level: int,
    language: str,
    probe: Probe | None = None,
    others: int = 0,
) -> tuple[bool, float, Game]:
    """One game: the ``deducing`` roles' seats at ``level``, the rest at
    ``others`` (0: the baseline); whether the deducing side won, and the CPU."""
    variant = get_variant(variant_name)
    game = Game.new(variant, variant.parse_config({}), seed)
    roles = game.roles()
    agents: dict[int, Agent] = {}
    for s in game.seats:
        bot = baseline_bot(variant, seat_seed(seed, s), language)
        at = level if deducing(roles[s]) else others
        if at:
            bot.at_level(at)  # type: ignore[attr-defined]
        agents[s] = bot
    COST.setdefault(level, (0, 0.0))
    start = time.process_time()
    while not game.over:
        for request in game.pending():
            ctx = DecisionContext.for_request(game, request)
            began = time.process_time()
            answer = decide_now(agents[request.seat], ctx)
            if deducing(roles[request.seat]):  # the cost of one decision of the side's bots
                COST[level] = (COST[level][0] + 1, COST[level][1] + time.process_time() - began)
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


def results(name: str, game: Game) -> dict[str, bool]:
    """Which sides won the finished ``game`` (a Four Factions side: any seat of the faction)."""
    outcome, roles = game.outcome(), game.roles()
    assert outcome is not None
    return {
        side: any(outcome.results.get(s) == "win" for s in game.seats if on_side(roles[s]))
        for side, on_side in _sides(name).items()
    }


MIRRORS: dict[tuple[str, int, int, str], dict[str, bool]] = {}  # (variant, level, seed, lang)


def mirrored(name: str, level: int, seed: int, language: str) -> dict[str, bool]:
    """Every side's result of ``seed`` with every seat at ``level`` (played once)."""
    key = (name, level, seed, language)
    if key not in MIRRORS:
        _, _, game = play(name, seed, lambda _: True, level, language, others=level)
        MIRRORS[key] = results(name, game)
    return MIRRORS[key]


def rate(wins: int, n: int) -> str:
    low, high = wilson(wins, n)
    return f"{wins / max(1, n):5.1%} [{low:5.1%}, {high:5.1%}]"


def matrix(
    name: str,
    levels: list[int],
    seeds: range,
    language: str,
    every: bool,
    only: list[tuple[int, int]] | None = None,
) -> None:
    """Levels against each other: for each pair (a, b), a > b (adjacent ones
    unless ``every``), each side played at a with the rest of the table at b,
    on the same seeds. Printed per side: a's win rate there; beside it, the
    yardstick: b's own rate in the same seats (the same seeds, every seat at b);
    and, in the same games, the rate of the side that plays against a (Werewolf,
    Killer: the other side; Four Factions: the rival faction, FF-25, so a's
    faction and its rival are a head-to-head, a draw neither's). Then pooled over
    the sides, with 95% Wilson intervals; "step" when a's pooled interval lies
    wholly above b's pooled rate in the same seats ("apart": above b's interval)."""
    pairs = [(a, b) for a in levels for b in levels if a > b]
    if not every:
        ordered = sorted(levels)
        pairs = list(zip(ordered[1:], ordered[:-1], strict=True))
    if only:
        pairs = only
    sides = list(_sides(name))
    for a, b in pairs:
        ours, yard, theirs = (dict.fromkeys(sides, 0) for _ in range(3))
        cpu = 0.0
        for side, on_side in _sides(name).items():
            against = opponent(name, side)
            for seed in seeds:
                _, seconds, game = play(name, seed, on_side, a, language, others=b)
                won = results(name, game)
                ours[side] += won[side]
                theirs[side] += won[against]
                yard[side] += mirrored(name, b, seed, language)[side]
                cpu += seconds
        g = len(seeds)
        for side in sides:
            print(
                f"{name:14s} level {a} vs {b}  {side:12s} level {a}: {rate(ours[side], g)}"
                f"  level {b} in its seats: {rate(yard[side], g)}"
                f"  its opponent (level {b}) in the same games: {rate(theirs[side], g)}",
                flush=True,
            )
        n, won, base = g * len(sides), sum(ours.values()), sum(yard.values())
        low, _ = wilson(won, n)
        step = "step" if low > base / n else "no step"
        step += ", apart" if low > wilson(base, n)[1] else ""
        print(
            f"{name:14s} level {a} vs {b}  pooled       level {a}: {rate(won, n)} of {n}"
            f"  level {b} in its seats: {rate(base, n)}"
            f"  its opponents: {rate(sum(theirs.values()), n)}  [{step}]"
            f"  {1000 * cpu / n:4.0f} ms/game",
            flush=True,
        )


def opponent(name: str, side: str) -> str:
    """The side that plays against ``side``: the other one, or its rival faction (FF-25)."""
    sides = list(_sides(name))
    if len(sides) == 2:
        return sides[1 - sides.index(side)]
    return rival_of(side)


# The scripted person of the exploit: one hidden seat's first speech claims the
# checking role and names an honest seat (issue 37, "the exploit of the person's game").
EXPLOIT = {
    "werewolf": ("werewolf", "villager", "seer", "werewolf.exiled"),
    "killer": ("killer", "civilian", "police", "killer.voted_out"),
}
FAKE = "I am the {role}. I checked seat {t} last night: a {hidden}. Vote seat {t} out."


def exploit(name: str, seeds: range, level: int, language: str) -> str:
    """A lone fake claim against a table at ``level`` (0: the baseline): the
    lowest hidden seat claims the checker on its first speech and accuses the
    lowest living plain seat (its other decisions the baseline bot's, at every level);
    how often the first seat voted out is the framed one, and how often the
    liar's side wins."""
    hidden, plain, role, out_kind = EXPLOIT[name]
    variant = get_variant(name)
    framed_out = side_won = 0
    for seed in seeds:
        game = Game.new(variant, variant.parse_config({}), seed)
        roles = game.roles()
        liar = min(s for s, r in roles.items() if r == hidden)
        framed = 0  # the lowest plain seat living when the liar speaks
        agents: dict[int, Agent] = {}
        for s in game.seats:
            agents[s] = baseline_bot(variant, seat_seed(seed, s), language)
            if level and s != liar:
                agents[s].at_level(level)  # type: ignore[attr-defined]
        lied = False
        while not game.over:
            for request in game.pending():
                if request.seat == liar and request.decision == "speech" and not lied:
                    lied = True
                    living = game.view(liar).public["living"]
                    framed = min(s for s in living if roles[s] == plain)
                    text = FAKE.format(role=role, t=framed, hidden=hidden)
                    game.submit(request.id, {"speech": text, "claim": role, "accuse": [framed]})
                    continue
                ctx = DecisionContext.for_request(game, request)
                answer = decide_now(agents[request.seat], ctx)
                if answer.payload is None:
                    game.submit_fallback(request.id, answer.fallback_reason or "invalid")
                else:
                    game.submit(request.id, answer.payload)
        first_out = next((e for e in game.events if e.kind == out_kind), None)
        framed_out += getattr(first_out, "seat", None) == framed
        outcome = game.outcome()
        assert outcome is not None
        side_won += outcome.results.get(liar) == "win"
    n = len(seeds)
    (a, b), (c, d) = wilson(framed_out, n), wilson(side_won, n)
    label = "baseline" if level == 0 else f"level {level}"
    return (
        f"{label}: framed out {framed_out / n:5.1%} [{a:5.1%}, {b:5.1%}], "
        f"liar's side won {side_won / n:5.1%} [{c:5.1%}, {d:5.1%}]"
    )


def mirror(name: str, levels: list[int], seeds: range, language: str) -> None:
    """Each level against itself (every seat at that level): every side's win
    rate and their pool, with 95% Wilson intervals (the matrix's yardstick)."""
    for level in levels:
        wins = dict.fromkeys(_sides(name), 0)
        for seed in seeds:
            for side, won in mirrored(name, level, seed, language).items():
                wins[side] += won
        g = len(seeds)
        parts = [f"{side} {rate(w, g)}" for side, w in wins.items()]
        pooled = rate(sum(wins.values()), g * len(wins))
        print(
            f"{name:14s} level {level} vs itself: " + "  ".join(parts) + f"  pooled {pooled}",
            flush=True,
        )


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


def use_behaviour(path: Path) -> None:
    """Every deducing seat of the run weighs evidence with the parameters in
    ``path``, all of them (a Mind takes behaviour.toml's values replaced by its
    table's ``behaviour``): each variant's bots get a copy of their table that
    carries every value of the file. The shipped files stay as they are."""
    values = dataclasses.asdict(load_behaviour(path))
    for bot in (WerewolfBot, KillerBot):
        bot.table = dataclasses.replace(bot.table, behaviour=values)
    four_factions_bot.TABLE = dataclasses.replace(four_factions_bot.TABLE, behaviour=values)


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
    parser.add_argument(
        "--matrix", action="store_true", help="the levels against each other (adjacent pairs)"
    )
    parser.add_argument("--exploit", action="store_true", help="a scripted lone fake checker claim")
    parser.add_argument("--mirror", action="store_true", help="each level against itself")
    parser.add_argument("--every-pair", action="store_true", help="with --matrix: all pairs")
    parser.add_argument(
        "--pair", type=int, nargs=2, action="append", help="with --matrix: the pair A B (A > B)"
    )
    parser.add_argument(
        "--set", nargs=3, action="append", default=[], help="LEVEL FIELD VALUE of the ladder"
    )
    parser.add_argument(
        "--behaviour", type=Path, help="the likelihood parameters of every deducing seat"
    )
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.games)
    if args.behaviour:
        use_behaviour(args.behaviour)
    for level, name, value in args.set:  # a trial setting of every ladder that has it
        for ladder in (WEREWOLF_LADDER, KILLER_LADDER, FOUR_FACTIONS_LADDER, FOUR_FACTIONS_TACTICS):
            rung: Any = ladder[int(level)]
            if not hasattr(rung, name):
                continue
            kind = type(getattr(rung, name))
            cast = (lambda v: v.lower() == "true") if kind is bool else kind
            ladder[int(level)] = dataclasses.replace(rung, **{name: cast(value)})
    if args.exploit:
        for name in args.variant or ["werewolf", "killer"]:
            for level in (0, *args.levels):
                print(f"{name:14s} exploit  " + exploit(name, seeds, level, args.language))
        return
    if args.mirror:
        for name in args.variant or ["werewolf", "killer"]:
            mirror(name, args.levels, seeds, args.language)
        return
    if args.matrix:
        for name in args.variant or ["werewolf", "killer", "four_factions"]:
            pairs = [(a, b) for a, b in args.pair or []]
            matrix(name, sorted({0, *args.levels}), seeds, args.language, args.every_pair, pairs)
        return
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
        per = [f"level {k}: {1000 * t / max(1, n):.2f}" for k, (n, t) in sorted(COST.items())]
        print(f"{name:14s} ms per decision (a side's bots)  " + "  ".join(per), flush=True)
        COST.clear()
        top = max(args.levels)  # the cost of a whole table of deducing bots
        cpu = sum(play(name, seed, lambda _: True, top, args.language)[1] for seed in seeds)
        print(f"{name:14s} every seat at level {top}: {1000 * cpu / len(seeds):4.0f} ms CPU/game")


if __name__ == "__main__":
    main()
