"""Fit the likelihood parameters on self-play games (issue 37, item 1).

Plays ``--games`` seeded games per variant, every seat at ``--level`` (played
in-process as bench_reference.py's ``play``), reads each game's public evidence
with the variant's own reader (as the bots read it), and prints each
parameter's fitted value beside the hand-set one (behaviour.toml with the
table's own overrides), with its observed and expected counts
(sandbox/deduction/fit.py, docs/deduction.md). Reports only: nothing shipped
changes; ``--write FILE`` writes the fit in behaviour.toml's format (one
variant), for bench_reference.py's ``--behaviour FILE``.

With ``--against LEVEL``: each seed once per side, that side at ``--level`` and the
rest of the table at LEVEL (0: the baseline), the tables bench_reference.py's cells play.

Run:  .venv/bin/python bench/fit_behaviour.py --variant werewolf --games 400 --level 4
      [--against 0] [--first-seed 0] [--language en] [--write FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reference import _sides, play

from sandbox.core.variant import HistoryItem
from sandbox.deduction.fit import Record, fit, record_of, to_toml
from sandbox.deduction.likelihood import load_behaviour
from sandbox.deduction.mind import Heard, PublicKinds
from sandbox.deduction.tables import RoleTable
from sandbox.games.four_factions import evidence as ff_evidence
from sandbox.games.killer import bot as killer_bot
from sandbox.games.werewolf import bot as werewolf_bot

Reader = Callable[[HistoryItem], Heard | None]


def _deaths(kinds: PublicKinds) -> dict[str, str]:
    return {kind: seat for kind, (seat, _) in kinds.deaths.items()}


# variant -> (its table, its bots' reader, its death kinds -> seat field)
READERS: dict[str, tuple[RoleTable, Reader, dict[str, str]]] = {
    "werewolf": (werewolf_bot.TABLE, werewolf_bot._heard, _deaths(werewolf_bot.KINDS)),
    "killer": (killer_bot.TABLE, killer_bot._heard, _deaths(killer_bot.KINDS)),
    "four_factions": (ff_evidence.TABLE, ff_evidence.heard, {}),
}


def records(
    name: str, seeds: range, level: int, language: str, against: int | None = None
) -> list[Record]:
    """Self-play games (every seat at ``level``) as the fitter's records; with
    ``against``, each seed once per side: that side at ``level``, the rest of
    the table at ``against`` (the tables bench_reference.py's cells play)."""
    table, read, deaths = READERS[name]
    sides = [lambda _: True] if against is None else list(_sides(name).values())
    out = []
    for seed in seeds:
        for side in sides:
            _, _, game = play(name, seed, side, level, language, others=against or 0)
            roles = game.roles()
            history = game.view(game.seats[0]).history  # its public items are every seat's
            out.append(record_of(history, roles, table, read, deaths))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variant", action="append", choices=["werewolf", "killer", "four_factions"]
    )
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--level", type=int, default=4)
    parser.add_argument("--language", default="en")
    parser.add_argument(
        "--against",
        type=int,
        help="each side at --level in turn, the rest of the table at this level (0: baseline)",
    )
    parser.add_argument("--write", type=Path, help="write the fit (one variant) as TOML")
    args = parser.parse_args()
    names = args.variant or ["werewolf", "killer", "four_factions"]
    if args.write and len(names) != 1:
        parser.error("--write takes one --variant")
    seeds = range(args.first_seed, args.first_seed + args.games)
    for name in names:
        table = READERS[name][0]
        hand = dataclasses.replace(load_behaviour(), **table.behaviour)
        began = time.process_time()
        played = records(name, seeds, args.level, args.language, args.against)
        fitted = fit(played, table, hand)
        cpu = time.process_time() - began
        tables = (
            f"every seat at level {args.level}"
            if args.against is None
            else f"each side at level {args.level} in turn, the rest at level {args.against}"
        )
        what = f"{len(played)} games of {name} (seeds {seeds.start}-{seeds.stop - 1}), {tables}"
        print(f"{what}: {cpu:.0f} s CPU")
        print(f"  {'parameter':22s} {'hand-set':>8s} {'fitted':>8s} {'O':>8s} {'E':>9s}  note")
        for e in fitted.estimates:
            print(
                f"  {e.name:22s} {getattr(hand, e.name):8.4g} {e.value:8.4g} "
                f"{e.observed:8g} {e.expected:9.1f}  {e.note}",
                flush=True,
            )
        if args.write:
            header = f"Fitted on {what}\n(bench/fit_behaviour.py; sandbox/deduction/fit.py)."
            args.write.write_text(to_toml(fitted, header), encoding="utf-8")


if __name__ == "__main__":
    main()
