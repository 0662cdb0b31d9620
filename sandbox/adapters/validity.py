"""When a seat's game result says nothing about its model: the silent-seat rule,
shared by every adapter that scores or rewards a seat (inspect's scorer, the
TextArena and PettingZoo infos, the RL episodes' reward).

A seat whose decisions the referee mostly played for it (recorded fallbacks)
did not play the game: its side may still win, but that win is not the
model's. The rule (docs/frameworks.md, "Silent seats"): a seat's result is
*invalid* when any of its decisions fell back because the model provider
failed, or when more than ``max_share`` (default 25 %) of its decisions fell
back for any reason. An invalid result is never scored as a win.

The tallies come from the transcript (a seat's ``core.decision`` events and
its call lines) or from counts an adapter kept itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox.core.seat import FALLBACK_PROVIDER

# The share of a seat's decisions that may fall back before its result stops
# counting: the same 25 % as the run's abort rule (run.abort_share), per seat.
MAX_FALLBACK_SHARE = 0.25
REFUSED = "invalid: "  # how a refused answer's call line starts its error


@dataclass
class SeatTally:
    """One seat's decisions in a game: how many, which fell back (by reason),
    and how many answers it gave and the referee refused."""

    decisions: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)
    answers: int = 0
    refused: int = 0
    repairs: int = 0

    @property
    def fallback_count(self) -> int:
        return sum(self.fallbacks.values())

    @property
    def valid_answer_rate(self) -> float:
        """Accepted answers over answers given: 0 for a seat asked decisions
        that gave no answer at all (every call failed), 1 for a seat never asked."""
        if not self.answers:
            return 0.0 if self.decisions else 1.0
        return (self.answers - self.refused) / self.answers

    def as_dict(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "fallbacks": self.fallback_count,
            "fallback_reasons": dict(sorted(self.fallbacks.items())),
            "answers": self.answers,
            "refused": self.refused,
            "repairs": self.repairs,
            "valid_answer_rate": self.valid_answer_rate,
        }


def invalid_reason(tally: SeatTally, max_share: float = MAX_FALLBACK_SHARE) -> str | None:
    """Why this seat's result cannot be scored, or None when it can."""
    provider = tally.fallbacks.get(FALLBACK_PROVIDER, 0)
    if provider:
        return f"{provider} decision(s) fell back because the model provider failed"
    if tally.decisions and tally.fallback_count / tally.decisions > max_share:
        return (
            f"{tally.fallback_count} of {tally.decisions} decisions fell back "
            f"(more than {max_share:.0%})"
        )
    return None


def merged(tallies: Iterable[SeatTally]) -> SeatTally:
    """Several seats (a side) as one tally."""
    total = SeatTally()
    for tally in tallies:
        total.decisions += tally.decisions
        total.answers += tally.answers
        total.refused += tally.refused
        total.repairs += tally.repairs
        for reason, count in tally.fallbacks.items():
            total.fallbacks[reason] = total.fallbacks.get(reason, 0) + count
    return total


def tallies_from(
    decisions: Iterable[Mapping[str, Any]], calls: Iterable[Mapping[str, Any]]
) -> dict[int, SeatTally]:
    """Each seat's tally from a transcript's decision events and call lines.
    An answer is a call line on its first HTTP attempt (a provider retry is
    the same answer asked again); a repair, such a line with ``repair > 0``."""
    found: dict[int, SeatTally] = {}
    for event in decisions:
        tally = found.setdefault(int(event.get("seat") or 0), SeatTally())
        tally.decisions += 1
        if event.get("fallback"):
            reason = str(event.get("fallback_reason") or "invalid")
            tally.fallbacks[reason] = tally.fallbacks.get(reason, 0) + 1
    for call in calls:
        if call.get("probe") or int(call.get("attempt") or 1) != 1:
            continue
        tally = found.setdefault(int(call.get("seat") or 0), SeatTally())
        error = str(call.get("error") or "")
        if error and not error.startswith(REFUSED):
            continue  # the provider failed: no answer was given
        tally.answers += 1
        tally.refused += int(bool(error))
        tally.repairs += int(int(call.get("repair") or 0) > 0)
    return found


def result_info(tally: SeatTally, max_share: float = MAX_FALLBACK_SHARE) -> dict[str, Any]:
    """What a framework's end-of-game info says of one seat's tally:
    ``valid_answer_rate``, ``fallbacks``, ``repairs``, and ``invalid`` (the
    rule above) with ``invalid_reason`` (empty when valid)."""
    reason = invalid_reason(tally, max_share)
    return {
        "valid_answer_rate": tally.valid_answer_rate,
        "fallbacks": tally.fallback_count,
        "repairs": tally.repairs,
        "invalid": reason is not None,
        "invalid_reason": reason or "",
    }
