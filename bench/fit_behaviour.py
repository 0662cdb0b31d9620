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

With ``--by brier``: the weights chosen by the belief's Brier score instead
(sandbox/deduction/tune.py): games on ``--train-seeds`` and ``--test-seeds``
(FIRST LAST, inclusive), each with the honest side at ``--level`` and the hidden
side at each of ``--hidden-levels`` (0: the baseline, the table bench_reference.py's
honest-side cell plays); every vote of an honest seat is scored as that level's
mind believes it; printed per variant: the hand-set and the fitted weights, and
the Brier score of each on the training and the held-out games (by day too),
beside a flat guess.

Run:  .venv/bin/python bench/fit_behaviour.py --variant werewolf --games 400 --level 4
      [--against 0] [--first-seed 0] [--language en] [--write FILE]
      .venv/bin/python bench/fit_behaviour.py --by brier --variant killer --level 4
      --train-seeds 1000 1199 --test-seeds 2000 2199 [--hidden-levels 0] [--write FILE]
      [--score FILE]  (also the Brier scores of the weights in FILE, on the same votes)
      [--fix NAME ...]  (parameters the search keeps) [--keep DIR]  (the folded votes, kept)
      [--kind hidden]  (search on P(hidden)'s score, not the roles')
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reference import _sides, play

from sandbox.core.game import Game
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.deduction import tune
from sandbox.deduction.fit import Record, fit, record_of, to_toml
from sandbox.deduction.likelihood import Behaviour, load_behaviour
from sandbox.deduction.mind import Heard, Level, PublicKinds
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


# variant -> (its bots' think: a view into a mind, its ladder)
MINDS: dict[str, tuple[tune.Think, dict[int, Level]]] = {
    "werewolf": (werewolf_bot.think, werewolf_bot.LADDER),
    "killer": (killer_bot.think, killer_bot.LADDER),
}


def watched(
    name: str, seeds: range, level: int, hidden_levels: list[int], language: str
) -> list[tune.Watched]:
    """Games with the honest side at ``level`` and the hidden side at each of
    ``hidden_levels``: each honest seat's views at its votes (the moments
    bench_reference.py's --calibration scores)."""
    table = READERS[name][0]
    honest = next(iter(_sides(name).values()))  # the first side: the village, the police side
    out = []
    for against in hidden_levels:
        for seed in seeds:
            votes: dict[int, list[SeatView]] = {}

            def probe(
                game: Game, seat: int, _: object, votes: dict[int, list[SeatView]] = votes
            ) -> None:
                if game.roles()[seat] not in table.hidden:
                    votes.setdefault(seat, []).append(game.view(seat))

            _, _, game = play(name, seed, honest, level, language, probe, others=against)
            out.append(tune.Watched(game.roles(), votes))
    return out


def _inclusive(pair: list[int]) -> range:
    return range(pair[0], pair[1] + 1)


def by_brier(args: argparse.Namespace, names: list[str]) -> None:
    for name in names:
        if name not in MINDS:
            print(f"{name}: no exact belief to fold (tune.py covers Werewolf and Killer)")
            continue
        table = READERS[name][0]
        hand = dataclasses.replace(load_behaviour(), **table.behaviour)
        began = time.process_time()
        sets = {}
        for label, pair in (("train", args.train_seeds), ("test", args.test_seeds)):
            sets[label] = _folded(name, label, pair, args)
        played = time.process_time() - began
        tuned = tune.search(sets["train"], hand, args.fix or (), args.kind)
        cpu = time.process_time() - began
        what = (
            f"{name}: honest side at level {args.level}, hidden side at "
            f"{' and '.join(map(str, args.hidden_levels))} (0: baseline); train seeds "
            f"{args.train_seeds[0]}-{args.train_seeds[1]} ({len(sets['train'])} votes), "
            f"held-out seeds {args.test_seeds[0]}-{args.test_seeds[1]} ({len(sets['test'])} votes)"
        )
        print(f"{what}: {played:.0f} s CPU to play and fold, {cpu - played:.0f} s to search")
        print(f"  {'parameter':22s} {'hand-set':>8s} {'fitted':>8s}")
        for n in tune.NAMES:
            print(f"  {n:22s} {getattr(hand, n):8.4g} {getattr(tuned.behaviour, n):8.4g}")
        for line in tuned.trail:
            print(f"    search: {line}")
        _briers(sets, hand, tuned.behaviour)
        for path in args.score or []:  # another set of weights, on the same votes
            other = load_behaviour(path)
            for label, points in sets.items():
                roles = tune.score(points, tune.logs(other))
                hidden = tune.score(points, tune.logs(other), "hidden")
                print(f"  {label:5s} Brier  {path}: roles {roles:.4f}, hidden {hidden:.4f}")
        if args.write:
            how = "(bench/fit_behaviour.py --by brier)."
            header = f"Chosen by the belief's Brier score on {what}\n{how}"
            args.write.write_text(tune.to_toml(tuned.behaviour, header), encoding="utf-8")


def _folded(name: str, label: str, pair: list[int], args: argparse.Namespace) -> list[tune.Point]:
    """The votes of the games on seeds ``pair``, folded; kept in ``--keep DIR``
    (one file per variant, seeds, levels) to search again without playing."""
    table = READERS[name][0]
    think, ladder = MINDS[name]
    levels = "-".join(map(str, args.hidden_levels))
    kept = (
        args.keep / f"{name}-{pair[0]}-{pair[1]}-{args.level}-{levels}.pickle"
        if args.keep
        else None
    )
    if kept is not None and kept.exists():
        with kept.open("rb") as f:
            points: list[tune.Point] = pickle.load(f)
        return points
    games = watched(name, _inclusive(pair), args.level, args.hidden_levels, args.language)
    points = tune.fold(games, table, think, args.level, ladder)
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        with kept.open("wb") as f:
            pickle.dump(points, f)
    return points


def _briers(sets: dict[str, list[tune.Point]], hand: Behaviour, fitted: Behaviour) -> None:
    """Each set's Brier scores, the roles' (the objective) then P(hidden)'s."""
    h, f = tune.logs(hand), tune.logs(fitted)
    for kind in ("roles", "hidden"):
        for label, points in sets.items():
            print(
                f"  {label:5s} Brier ({kind:6s})  hand-set {tune.score(points, h, kind):.4f}  "
                f"fitted {tune.score(points, f, kind):.4f}  flat {tune.flat(points, kind):.4f}"
            )
            days_h, days_f = tune.by_day(points, h, kind), tune.by_day(points, f, kind)
            for day, (value, n) in days_h.items():
                print(
                    f"        day {day:2d}  hand-set {value:.4f}  "
                    f"fitted {days_f[day][0]:.4f}  ({n})"
                )
    sys.stdout.flush()


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
    parser.add_argument("--by", choices=["counts", "brier"], default="counts")
    parser.add_argument("--train-seeds", type=int, nargs=2, default=[1000, 1199])
    parser.add_argument("--test-seeds", type=int, nargs=2, default=[2000, 2199])
    parser.add_argument("--hidden-levels", type=int, nargs="+", default=[0])
    parser.add_argument(
        "--kind", choices=["roles", "hidden"], default="roles", help="with --by brier: the score"
    )
    parser.add_argument("--fix", nargs="+", help="with --by brier: parameters kept as they are")
    parser.add_argument("--keep", type=Path, help="with --by brier: keep the folded votes here")
    parser.add_argument(
        "--score", type=Path, action="append", help="with --by brier: also score these weights"
    )
    args = parser.parse_args()
    names = args.variant or ["werewolf", "killer", "four_factions"]
    if args.write and len(names) != 1:
        parser.error("--write takes one --variant")
    if args.by == "brier":
        by_brier(args, names)
        return
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
