"""Aggregate figures over many transcripts (``sandbox stats``).

Per variant: games, termination reasons, win/lose/draw rates per role group
(the role label up to its first '/', e.g. 'wolves' for 'wolves/elite') with a
seeded 95% bootstrap confidence interval over games, fallbacks per seat kind and
reason, repairs, model calls, tokens, cost and latency; on request, how well
the LLM seats' belief probes name the other seats' true sides.

Aborted games (the model provider failed too often, see sandbox/play/runner.py) end
in an all-draw that says nothing about the game, so the rates leave them out
unless asked; they still count under reasons, fallbacks and usage.

A game is counted once: copies of one study or batch game (same identity,
sandbox/study/identity.py, e.g. a re-run batch in the same folder) are skipped
and counted under ``duplicates``. Each variant lists its setups (game file name,
player count) and says plainly when it pools several (``--by-setup`` splits
them), and gives win rates per contestant (or model) and side with Wilson
intervals over games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.agents.llm.beliefs import UNKNOWN
from sandbox.analysis.intervals import wilson
from sandbox.core.events import DecisionMade
from sandbox.games.registry import get_variant
from sandbox.play.runner import ABORTED
from sandbox.study.identity import identity_of
from sandbox.study.sides import side_of
from sandbox.transcript import Transcript, TranscriptError, latency_of, load
from sandbox.transcript.audience import history_index, seat_numbers

RESULTS = ("win", "lose", "draw")
BOOTSTRAP_SAMPLES = 1000
BOOTSTRAP_SEED = 20240601


@dataclass
class GameFacts:
    """What one finished game contributes."""

    reason: str
    # one (role group, result) per seat
    seats: list[tuple[str, str]]
    fallbacks: Counter[tuple[str, str]]
    repairs: int
    calls: int
    tokens_in: int
    tokens_out: int
    cost: float
    latencies: list[float]
    # (game file name, player count): games of different setups are not comparable
    setup: tuple[str, int] = ("?", 0)
    # one (contestant or model, side, won) per contestant and side that played
    players: list[tuple[str, str, bool]] = field(default_factory=list)


@dataclass
class VariantStats:
    games: list[GameFacts] = field(default_factory=list)
    unfinished: int = 0
    duplicates: int = 0  # copies of a game already counted (same identity)
    # one per readable transcript, finished or not; only when beliefs are asked for
    beliefs: list[BeliefFacts] = field(default_factory=list)


def collect_paths(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.jsonl")))
        else:
            found.append(path)
    return found


def role_group(role: str) -> str:
    return role.split("/", 1)[0]


def game_facts(transcript: Transcript) -> GameFacts | None:
    outcome = transcript.outcome
    if outcome is None:
        return None
    header = transcript.header
    roles = header.get("roles") or {}
    results = outcome.get("results") or {}
    seats = [(role_group(str(roles[s])), str(results.get(s, "?"))) for s in sorted(roles, key=int)]
    fallbacks: Counter[tuple[str, str]] = Counter()
    for seq, event in enumerate(transcript.events):
        if isinstance(event, DecisionMade) and event.fallback:
            # credited to the agent that played the seat then (fork, take-over)
            kind = str(transcript.agent_at(event.seat, seq).get("kind") or "?")
            fallbacks[(kind, event.fallback_reason)] += 1
    calls = transcript.calls
    latencies = [x for x in (latency_of(c) for c in calls) if x is not None]
    name = str(header.get("name") or (header.get("config") or {}).get("name") or header["variant"])
    return GameFacts(
        reason=str(outcome.get("reason")),
        seats=seats,
        fallbacks=fallbacks,
        repairs=int((outcome.get("stats") or {}).get("repairs") or 0),
        calls=len(calls),
        tokens_in=sum(int(c.get("tokens_in") or 0) for c in calls),
        tokens_out=sum(int(c.get("tokens_out") or 0) for c in calls),
        cost=sum(float(c.get("cost") or 0.0) for c in calls),
        latencies=latencies,
        setup=(name, len(roles)),
        players=players_of(header, results),
    )


def players_of(header: dict[str, Any], results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(contestant, side, won) once per contestant and side: a study's contestant,
    else the seat's model (LLM seats) or agent kind. Seats of one side share
    their result, so a side counts once per game."""
    variant = str(header.get("variant"))
    named = header.get("contestants") or {}
    agents = header.get("agents") or {}
    played: dict[tuple[str, str], bool] = {}
    for seat, role in (header.get("roles") or {}).items():
        agent = agents.get(seat) or {}
        who = str(named.get(seat) or agent.get("model") or agent.get("kind") or "?")
        key = (who, side_of(variant, str(role)))
        played[key] = played.get(key, False) or results.get(seat) == "win"
    return [(who, side, won) for (who, side), won in sorted(played.items())]


def gather(
    paths: Iterable[Path], beliefs: bool = False, by_setup: bool = False
) -> tuple[dict[str, VariantStats], list[tuple[str, str]]]:
    """Per-variant facts (with ``by_setup``, per variant, game file name and player
    count; with ``beliefs``, the belief probes too), and the files skipped with
    the reason. A game with an identity counts once (its first finished copy)."""
    per_variant: dict[str, VariantStats] = {}
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for path in _finished_first(collect_paths(paths)):
        try:
            transcript = load(path)
            facts = game_facts(transcript)
            probed = belief_facts(transcript) if beliefs else None
        except (TranscriptError, OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            skipped.append((str(path), _why(path, err)))
            continue
        key = _bucket_key(transcript.header, facts, by_setup)
        bucket = per_variant.setdefault(key, VariantStats())
        ident = identity_of(transcript.header)
        if ident is not None and ident in seen:
            bucket.duplicates += 1
            continue
        if ident is not None:
            seen.add(ident)
        if probed is not None:
            bucket.beliefs.append(probed)
        if facts is None:
            bucket.unfinished += 1
        else:
            bucket.games.append(facts)
    return per_variant, skipped


def _finished_first(paths: list[Path]) -> list[Path]:
    """Finished files before unfinished ones, so a game's finished copy is the one counted."""
    from sandbox.study.identity import read_head

    def unfinished(path: Path) -> bool:
        head = read_head(path)
        return head is None or not head.finished

    return sorted(paths, key=unfinished)


def _bucket_key(header: dict[str, Any], facts: GameFacts | None, by_setup: bool) -> str:
    variant = str(header.get("variant"))
    if not by_setup:
        return variant
    name = str(header.get("name") or (header.get("config") or {}).get("name") or variant)
    return f"{variant} · {name} · {len(header.get('roles') or {})}p"


def _why(path: Path, err: Exception) -> str:
    """The first line of the reason, without the path the listing already shows."""
    line = (str(err) or type(err).__name__).splitlines()[0]
    return line.removeprefix(f"{path}: ") or line


def rate_with_ci(
    games: Sequence[GameFacts], role: str, result: str, rng: random.Random
) -> dict[str, Any]:
    """Share of the role's seats with ``result``; CI by resampling whole games."""
    counted = [_count(g, role, result) for g in games]
    per_game = [(hits, n) for hits, n in counted if n]
    return {
        "rate": round(_ratio(per_game), 4),
        "ci95": bootstrap_ci95(per_game, rng),
        "seats": sum(n for _, n in per_game),
    }


def bootstrap_ci95(per_game: Sequence[tuple[int, int]], rng: random.Random) -> list[float]:
    """95% interval of hits/total, resampling whole games: the items of one game
    (its seats, its guesses) are not independent of each other. When the
    resamples have no spread (e.g. no hits in any game) the Wilson interval with
    n = games is given instead, so a 0% rate never gets [0%–0%]."""
    if not per_game:
        return [0.0, 0.0]
    draws = sorted(
        _ratio([per_game[rng.randrange(len(per_game))] for _ in per_game])
        for _ in range(BOOTSTRAP_SAMPLES)
    )
    low = draws[int(0.025 * (BOOTSTRAP_SAMPLES - 1))]
    high = draws[int(0.975 * (BOOTSTRAP_SAMPLES - 1))]
    if low == high:
        low, high = wilson(round(low * len(per_game)), len(per_game)) or (low, high)
    return [round(low, 4), round(high, 4)]


def _count(game: GameFacts, role: str, result: str) -> tuple[int, int]:
    mine = [res for r, res in game.seats if r == role]
    return sum(1 for res in mine if res == result), len(mine)


def _ratio(pairs: Sequence[tuple[int, int]]) -> float:
    total = sum(n for _, n in pairs)
    return sum(h for h, _ in pairs) / total if total else 0.0


def summarise(
    per_variant: dict[str, VariantStats],
    seed: int = BOOTSTRAP_SEED,
    include_aborted: bool = False,
    beliefs: bool = False,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, bucket in sorted(per_variant.items()):
        rng = random.Random(seed)
        games = bucket.games
        rated = [g for g in games if include_aborted or g.reason != ABORTED]
        roles = sorted({r for g in rated for r, _ in g.seats})
        latencies = sorted(x for g in games for x in g.latencies)
        fallbacks: Counter[tuple[str, str]] = Counter()
        for g in games:
            fallbacks.update(g.fallbacks)
        out[name] = {
            "games": len(games),
            "unfinished": bucket.unfinished,
            "rated": len(rated),
            "reasons": dict(Counter(g.reason for g in games)),
            "roles": {
                role: {res: rate_with_ci(rated, role, res, rng) for res in RESULTS}
                for role in roles
            },
            "fallbacks": {f"{kind}/{reason}": n for (kind, reason), n in sorted(fallbacks.items())},
            "repairs": sum(g.repairs for g in games),
            "calls": sum(g.calls for g in games),
            "tokens_in": sum(g.tokens_in for g in games),
            "tokens_out": sum(g.tokens_out for g in games),
            "cost": round(sum(g.cost for g in games), 6),
            "latency_s": _latency(latencies),
            "duplicates": bucket.duplicates,
            "setups": _setups(games),
            "pooling_warning": _pooling(_setups(games)),
            "by_contestant": by_contestant(rated),
        }
        if beliefs:
            # its own generator: asking for beliefs never moves the win-rate intervals
            out[name]["beliefs"] = summarise_beliefs(bucket.beliefs, random.Random(seed))
    return out


def _setups(games: Sequence[GameFacts]) -> list[dict[str, Any]]:
    counts = Counter(g.setup for g in games)
    return [{"name": n, "players": p, "games": c} for (n, p), c in sorted(counts.items())]


def _pooling(setups: Sequence[dict[str, Any]]) -> str | None:
    if len(setups) <= 1:
        return None
    names = ", ".join(f"{s['name']} ({s['players']} players)" for s in setups)
    return f"pools {len(setups)} different setups: {names}; use --by-setup to split them"


def by_contestant(games: Sequence[GameFacts]) -> dict[str, dict[str, Any]]:
    """contestant (or model) -> side -> win rate over games, Wilson 95% interval."""
    tally: dict[str, dict[str, list[int]]] = {}
    for game in games:
        for who, side, won in game.players:
            cell = tally.setdefault(who, {}).setdefault(side, [0, 0])
            cell[0] += int(won)
            cell[1] += 1
    out: dict[str, dict[str, Any]] = {}
    for who, sides in sorted(tally.items()):
        out[who] = {}
        for side, (wins, n) in sorted(sides.items()):
            low, high = wilson(wins, n) or (0.0, 1.0)
            out[who][side] = {
                "rate": round(wins / n, 4),
                "wins": wins,
                "games": n,
                "ci95": [round(low, 4), round(high, 4)],
            }
    return out


def _latency(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {
        "mean": round(sum(values) / len(values), 3),
        "p50": round(values[len(values) // 2], 3),
        "p95": round(values[min(len(values) - 1, int(0.95 * len(values)))], 3),
        "max": round(values[-1], 3),
    }


# ------------------------------------------------------------- belief probes
# With ``[llm] belief_probe`` every accepted LLM answer's call line carries the
# seat's private guess of each other seat's side (docs/transcript.md); with
# ``probe_after_speech`` so do the probe-only call lines. A side is a role group
# ("wolves" for "wolves/elite"), the labels the probe asks about. A guess is a
# distribution (its most likely side counts here) or, in older transcripts, a
# label.


@dataclass(frozen=True)
class Guess:
    """One seat's guess about one other seat, from one probe."""

    guesser: str  # the guessing seat's role group
    target: str  # the target's true side
    said: str  # the side guessed, or "unknown"
    day: int

    @property
    def committed(self) -> bool:
        return self.said != UNKNOWN

    @property
    def right(self) -> bool:
        return self.said == self.target


@dataclass
class BeliefFacts:
    """The belief probes of one transcript."""

    probes: int = 0  # call lines that carry a beliefs object
    dropped: int = 0  # call lines whose beliefs were dropped (beliefs_error)
    guesses: list[Guess] = field(default_factory=list)


def belief_facts(transcript: Transcript) -> BeliefFacts:
    roles = transcript.header.get("roles") or {}
    sides = {str(seat): role_group(str(role)) for seat, role in roles.items()}
    days, seq_days = decision_days(transcript)
    last_day = max(days.values(), default=0)
    facts = BeliefFacts()
    for call in transcript.calls:
        if call.get("beliefs_error"):
            facts.dropped += 1
        beliefs = call.get("beliefs")
        if not isinstance(beliefs, dict):
            continue
        facts.probes += 1
        guesser = sides.get(str(call.get("seat")), "?")
        # A call whose decision never made it to the file (a torn game) belongs
        # to the last day the file reached.
        day = days.get(str(call.get("request_id")), last_day)
        if call.get("probe") and isinstance(call.get("seq"), int):
            day = seq_days[min(int(call["seq"]), len(seq_days) - 1)]
        for target, said in beliefs.items():
            if str(target) in sides:
                facts.guesses.append(Guess(guesser, sides[str(target)], most_likely(said), day))
    return facts


def most_likely(said: Any) -> str:
    """A guess as one side: a label as it is, a distribution's most likely
    label (ties: the first in alphabetical order), an empty one "unknown"."""
    if isinstance(said, dict):
        numbers = {str(k): float(v) for k, v in said.items() if isinstance(v, int | float)}
        return max(sorted(numbers), key=lambda k: numbers[k]) if numbers else UNKNOWN
    return str(said)


def decision_days(transcript: Transcript) -> tuple[dict[str, int], list[int]]:
    """request_id -> the game day its decision was made on (0 before day 1),
    and the day at each event position (one more than there are events)."""
    variant = get_variant(str(transcript.header.get("variant")))
    index = history_index(variant, transcript, seat_numbers(transcript))
    days: dict[str, int] = {}
    seq_days: list[int] = []
    day = 0
    for seq, event in enumerate(transcript.events):
        seq_days.append(day)
        item = index.get(seq)
        day = item.day if item is not None else day  # unindexed: the day so far
        if isinstance(event, DecisionMade):
            days[event.request_id] = day
    seq_days.append(day)
    return days, seq_days


def summarise_beliefs(per_transcript: Sequence[BeliefFacts], rng: random.Random) -> dict[str, Any]:
    """Accuracy = share of committed (not "unknown") guesses that name the true side."""
    guesses = [g for facts in per_transcript for g in facts.guesses]
    per_game = [_tally(facts.guesses) for facts in per_transcript if facts.guesses]
    per_game = [(right, n) for right, n in per_game if n]
    unknown = sum(1 for g in guesses if not g.committed)
    overall = _cell(guesses)
    return {
        "probes": sum(f.probes for f in per_transcript),
        "dropped": sum(f.dropped for f in per_transcript),
        "transcripts": sum(1 for f in per_transcript if f.probes),
        "guesses": len(guesses),
        "unknown": unknown,
        "unknown_share": round(unknown / len(guesses), 4) if guesses else None,
        "accuracy": {**overall, "ci95": bootstrap_ci95(per_game, rng) if per_game else None},
        "by_guesser": _split(guesses, lambda g: g.guesser),
        "by_target": _split(guesses, lambda g: g.target),
        "by_day": _split(guesses, lambda g: str(g.day), key=int),
    }


def _tally(guesses: Sequence[Guess]) -> tuple[int, int]:
    committed = [g for g in guesses if g.committed]
    return sum(1 for g in committed if g.right), len(committed)


def _cell(guesses: Sequence[Guess]) -> dict[str, Any]:
    right, committed = _tally(guesses)
    return {
        "rate": round(right / committed, 4) if committed else None,
        "right": right,
        "committed": committed,
        "unknown": len(guesses) - committed,
    }


def _split(
    guesses: Sequence[Guess],
    group: Callable[[Guess], str],
    key: Callable[[str], Any] = str,
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Guess]] = {}
    for guess in guesses:
        groups.setdefault(group(guess), []).append(guess)
    return {name: _cell(groups[name]) for name in sorted(groups, key=key)}
