"""Baseline-bot benchmark: how games between baseline seats end, and how the bots talk.

Prints, per variant and player count: the share of wins per side (Killer:
police side / killers / draw; Four Factions: per faction win/lose/draw), the
share of each termination reason, each with a 95% Wilson interval, the number
of fallbacks (answers the bot could not make legal) and games per second.

Speech figures (``speech`` lines), over the public speeches of the games:
- ``distinct``: per game, distinct non-empty texts / non-empty speeches, averaged
  over games (1.0: no speech repeats another of its game);
- ``refers``: the share of non-empty speeches that talk about something that
  happened: they name a seat that had died, or they name, beyond the speaker and
  the seats of their own structured claims (accuse, vouch, target), another seat,
  every such seat having appeared in an earlier event (a death, a speech, a
  ballot, a duel). A speech without structured claims is taken to claim every
  seat it names, so only a named death counts for it;
- ``empty``: the share of speeches that say nothing.
A 95% Wilson interval is given for ``refers`` and ``empty`` over speeches (speeches
of one game are not independent, so read it as a lower bound of the uncertainty).

Run:  .venv/bin/python bench/bench_bots.py [--games N] [--variant killer]
      [--players 11 12 ...] [--language zh]
Games are seeded 0..N-1 per player count, so a run is reproducible.
No figure is asserted anywhere; this only reports.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox.agents.baseline import baseline_bot
from sandbox.core.game import Game
from sandbox.core.seat import Agent, AgentAnswer, DecisionContext, decide_now
from sandbox.core.variant import Outcome
from sandbox.games.registry import get_variant
from sandbox.session.seating import seat_seed

Z95 = 1.96


@dataclass
class Tally:
    games: int = 0
    fallbacks: int = 0
    seconds: float = 0.0
    sides: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    distinct: list[float] = field(default_factory=list)  # per game
    speeches: int = 0
    said: int = 0  # non-empty
    refers: int = 0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.fallbacks += other.fallbacks
        self.seconds += other.seconds
        self.sides.update(other.sides)
        self.reasons.update(other.reasons)
        self.distinct += other.distinct
        self.speeches += other.speeches
        self.said += other.said
        self.refers += other.refers


SEAT_RE = re.compile(r"(?:[Ss]eat (\d+))|(?:(\d+)号)")
CLAIM_FIELDS = ("accuse", "vouch", "target")
SEAT_FIELDS = ("seat", "victim", "target", "attacker", "accuse", "vouch", "ballots")


def _ints(value: Any) -> set[int]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return {int(k) for k in value if str(k).isdigit()} | {
            v for v in value.values() if isinstance(v, int) and not isinstance(v, bool)
        }
    if isinstance(value, (list, tuple)):
        return {v for v in value if isinstance(v, int) and not isinstance(v, bool)}
    return set()


def _seats_in(event: Any, names: Iterable[str]) -> set[int]:
    found: set[int] = set()
    for name in names:
        found |= _ints(getattr(event, name, None))
    return found


def speech_figures(game: Game, tally: Tally) -> None:
    """Add one game's speeches to the speech figures (see the module's docstring)."""
    kinds = game.variant.info.speech_kinds
    seen: set[int] = set()  # seats that appeared in an earlier event
    dead: set[int] = set()
    deaths = game.variant.info.death_fields  # event kind -> the field naming the dead seat
    texts: list[str] = []
    for event in game.events:
        if not dataclasses.is_dataclass(event):
            continue
        if event.kind in kinds:
            text = str(getattr(event, "text", None) or getattr(event, "speech", None) or "")
            tally.speeches += 1
            if text:
                texts.append(text)
                speaker = _ints(getattr(event, "seat", None))
                named = {int(a or b) for a, b in SEAT_RE.findall(text)} - speaker
                claimed = _seats_in(event, CLAIM_FIELDS) or named
                extra = named - claimed
                tally.refers += bool(named & dead) or (bool(extra) and extra <= seen)
        seen |= _seats_in(event, SEAT_FIELDS)
        if event.kind in deaths:
            dead |= _seats_in(event, (deaths[event.kind],))
    tally.said += len(texts)
    if texts:
        tally.distinct.append(len(set(texts)) / len(texts))


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


def play(
    variant_name: str, raw_config: dict[str, Any], seed: int, language: str = "en"
) -> tuple[Game, int]:
    """One game of baseline seats; returns the finished game and its fallback count."""
    variant = get_variant(variant_name)
    game = Game.new(variant, variant.parse_config(raw_config), seed)
    agents = {s: baseline_bot(variant, seat_seed(seed, s), language) for s in game.seats}
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


def werewolf_sides(game: Game, outcome: Outcome) -> list[str]:
    roles = game.roles()
    wolf = next(r for s, r in outcome.results.items() if roles[s] == "werewolf")
    return {"win": ["werewolves"], "lose": ["village"]}.get(wolf, ["draw"])


SIDES = {"killer": killer_sides, "four_factions": faction_sides, "werewolf": werewolf_sides}


def run(variant_name: str, raw: dict[str, Any], games: int, language: str = "en") -> Tally:
    sides = SIDES[variant_name]
    tally = Tally()
    start = time.perf_counter()
    for seed in range(games):
        game, fallbacks = play(variant_name, raw, seed, language)
        speech_figures(game, tally)
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
    if tally.speeches:
        distinct = sum(tally.distinct) / len(tally.distinct) if tally.distinct else 0.0
        refers = _share(tally.refers, tally.said)
        empty = _share(tally.speeches - tally.said, tally.speeches)
        print(f"    speech  distinct {distinct:5.1%}  refers {refers}  empty {empty}")


def _share(hits: int, n: int) -> str:
    if n == 0:
        return "n/a"
    low, high = wilson(hits, n)
    return f"{hits / n:5.1%} [{low:5.1%}, {high:5.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per configuration")
    parser.add_argument("--variant", choices=sorted(SIDES), action="append")
    parser.add_argument("--players", type=int, nargs="*", default=list(range(11, 17)))
    parser.add_argument("--language", choices=["en", "zh"], default="en")
    args = parser.parse_args()
    for name in args.variant or ["killer", "four_factions", "werewolf"]:
        if name != "killer":
            report(f"{name} (default seats)", run(name, {}, args.games, args.language))
            continue
        total = Tally()
        for players in args.players:
            tally = run(name, {"players": players}, args.games, args.language)
            report(f"killer {players} players", tally)
            total.add(tally)
        report("killer all player counts", total)


if __name__ == "__main__":
    main()
