"""How well the LLM seats' belief probes name the other seats' true sides
(``sandbox stats --beliefs``).

With ``[llm] belief_probe`` every accepted LLM answer's call line carries the
seat's private guess of each other seat's side (docs/transcript.md); with
``probe_after_speech`` so do the probe-only call lines. A side is a role group
("wolves" for "wolves/elite"), the labels the probe asks about. A guess is a
distribution (its most likely side counts here) or, in older transcripts, a
label.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.agents.llm.beliefs import UNKNOWN
from sandbox.analysis.intervals import bootstrap_ci95
from sandbox.core.events import DecisionMade
from sandbox.games.registry import get_variant
from sandbox.transcript import Transcript
from sandbox.transcript.audience import history_index, seat_numbers
from sandbox.transcript.sides import role_group


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
