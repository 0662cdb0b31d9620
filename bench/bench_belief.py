"""Belief-update benchmark (issue 37, cost): what one seat's role belief costs.

Prints, for a few table shapes (a civilian at a 12-seat Killer table, exact; a
villager at an 8-seat Werewolf table, exact; a villager at a 16-seat Werewolf
table, sampled), the time to build the belief, the mean time per piece of
evidence, per marginal query, and the CPU of a "game's worth" of work: every
seat of the table keeping a belief through ``--evidence`` pieces of evidence
and ``--queries`` marginal queries each.

Run:  .venv/bin/python bench/bench_belief.py [--evidence 120] [--queries 30]
Seeded: the evidence stream is the same on every run. Reports only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.deduction.belief import Belief
from sandbox.deduction.evidence import Ballot, CheckReport, Evidence, Killed, RoleClaim, SeatIs
from sandbox.deduction.space import Space
from sandbox.deduction.tables import RoleTable, load_table

SHAPES = {
    # name: (table, deck, the seat's own role)
    "killer-12 (exact)": ("killer", {"killer": 3, "police": 3, "civilian": 6}, "civilian"),
    "werewolf-8 (exact)": (
        "werewolf",
        {"werewolf": 2, "seer": 1, "doctor": 1, "villager": 4},
        "villager",
    ),
    "werewolf-16 (sampled)": (
        "werewolf",
        {"werewolf": 4, "seer": 1, "doctor": 1, "villager": 10},
        "villager",
    ),
}


def stream(table: RoleTable, seats: int, n: int, rng: random.Random) -> list[Evidence]:
    """``n`` pieces of evidence of the usual kinds over ``seats`` seats."""
    out: list[Evidence] = []
    roles = list(table.roles)
    for _ in range(n):
        a, b = rng.sample(range(1, seats + 1), 2)
        kind = rng.random()
        if kind < 0.1:
            out.append(RoleClaim(a, frozenset({rng.choice(roles)})))
        elif kind < 0.45:
            out.append(SeatIs(a, b, table.hidden if rng.random() < 0.7 else table.honest))
        elif kind < 0.5 and table.checker:
            out.append(CheckReport(a, b, table.hidden))
        elif kind < 0.95:
            out.append(Ballot(a, b))
        else:
            out.append(Killed(b))
    return out


def run(name: str, evidence: int, queries: int) -> None:
    table_name, deck, own = SHAPES[name]
    table = load_table(table_name)
    seats = sum(deck.values())
    items = stream(table, seats, evidence, random.Random(1))
    build = observe = query = 0.0
    cpu0 = time.process_time()
    for seat in range(1, seats + 1):
        t0 = time.perf_counter()
        belief = Belief(Space(tuple(range(1, seats + 1)), deck), table, seed=seat)
        belief.know(seat, {own})
        t1 = time.perf_counter()
        every = max(1, evidence // max(1, queries))
        for k, item in enumerate(items):
            t2 = time.perf_counter()
            belief.observe(item)
            t3 = time.perf_counter()
            observe += t3 - t2
            if k % every == 0:
                belief.marginals()
                query += time.perf_counter() - t3
        build += t1 - t0
    cpu = time.process_time() - cpu0
    print(
        f"{name:22s} build {1000 * build / seats:7.2f} ms  "
        f"evidence {1000 * observe / (seats * evidence):6.3f} ms  "
        f"query {1000 * query / (seats * queries):6.3f} ms  "
        f"table of {seats} seats, {evidence} evidence, {queries} queries each: "
        f"{cpu:6.2f} s CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evidence", type=int, default=120)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--shape", choices=sorted(SHAPES), action="append")
    args = parser.parse_args()
    for name in args.shape or list(SHAPES):
        run(name, args.evidence, args.queries)


if __name__ == "__main__":
    main()
