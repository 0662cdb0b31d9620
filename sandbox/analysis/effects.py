"""The effect of an intervention (docs/studies.md, "What if"): each branch's
outcomes, and the difference between an arm's mean and the control's with a
95% interval.

Outcomes of one branch (a transcript with ``forked_from``; ``at`` = where it
left the source game):

- ``win:<side>``: 1 if that side won, else 0 (a draw: 0 for every side);
- ``ballots_against:<seat>``: the ballots naming that seat in the first vote
  at or after ``at`` (0 when no vote came);
- ``p_truth``: the listeners' probability of the truth at their first belief
  probe at or after ``at`` (per listener the mean p_true over the seats it was
  asked about, then the mean over listeners; the changed speech's speaker is no
  listener). Only branches with probes have it.

The effect of arm T against the control C on an outcome is
``d = mean_T − mean_C``. Its 95% interval:

- for a win (a proportion): Newcombe's hybrid score interval from the two
  Wilson intervals (l₁, u₁) of p_T and (l₂, u₂) of p_C:
  ``[d − √((p_T − l₁)² + (u₂ − p_C)²), d + √((u₁ − p_T)² + (p_C − l₂)²)]``;
- otherwise a bootstrap over branches: each arm's branches resampled with
  replacement (BOOTSTRAP_SAMPLES times, seeded), the 2.5th and 97.5th
  percentiles of the difference of means.

Both treat the arms as independent samples of branches. The arms share branch
seeds, which can only make their outcomes alike, so the interval is if anything
too wide, never too narrow; it is an interval over branches (sampling), not over
source games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED, Z95, wilson
from sandbox.analysis.tables import belief_rows, winning_sides
from sandbox.transcript import EventRow, Transcript
from sandbox.transcript.sides import sides_of

VOTE_DECISION = "vote"


def branch_at(game: Transcript[EventRow]) -> int:
    link = game.header.get("forked_from") or {}
    return int(link.get("at") or 0)


def next_vote(
    game: Transcript[EventRow], at: int, decision: str = VOTE_DECISION
) -> list[Any] | None:
    """The ballots (targets, None = abstain) of the first vote whose decisions
    come at or after ``at``; None when no vote came."""
    steps: dict[str, list[Any]] = {}
    for event in game.of_kind("core.decision"):
        if int(event["seq"]) < at or event.get("decision") != decision:
            continue
        step = str(event.get("request_id", "")).split(".", 1)[0]
        payload = event.get("payload") or {}
        steps.setdefault(step, []).append(payload.get("target"))
    return next(iter(steps.values()), None)


def listener_truth(game: Transcript[EventRow], at: int, speaker: int | None) -> float | None:
    """Mean over listeners of their mean p_true at their first probe at or after ``at``."""
    first: dict[int, int] = {}
    values: dict[tuple[int, int], list[float]] = {}
    for row in belief_rows(game):
        seq, seat, p = row["seq"], int(row["seat"]), row["p_true"]
        if seq is None or seq < at or p is None or seat == speaker:
            continue
        first[seat] = min(first.get(seat, seq), seq)
        values.setdefault((seat, seq), []).append(float(p))
    means = [sum(v) / len(v) for (seat, seq), v in values.items() if first[seat] == seq]
    return sum(means) / len(means) if means else None


def branch_outcomes(
    game: Transcript[EventRow], against: Sequence[int] = (), speaker: int | None = None
) -> dict[str, float]:
    """Every outcome of one branch (see the module docstring)."""
    at = branch_at(game)
    won = set(winning_sides(game))
    out = {f"win:{side}": float(side in won) for side in sides_of(game.variant, game.roles)}
    ballots = next_vote(game, at)
    for seat in against:
        out[f"ballots_against:{seat}"] = float(sum(1 for t in ballots or [] if t == seat))
    truth = listener_truth(game, at, speaker)
    if truth is not None:
        out["p_truth"] = truth
    return out


def newcombe(hits_t: int, n_t: int, hits_c: int, n_c: int) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval for p_T − p_C (two Wilson intervals)."""
    wt, wc = wilson(hits_t, n_t, Z95), wilson(hits_c, n_c, Z95)
    if wt is None or wc is None:
        return None
    pt, pc = hits_t / n_t, hits_c / n_c
    d = pt - pc
    low = d - math.sqrt((pt - wt[0]) ** 2 + (wc[1] - pc) ** 2)
    high = d + math.sqrt((wt[1] - pt) ** 2 + (pc - wc[0]) ** 2)
    return max(-1.0, low), min(1.0, high)


def bootstrap_difference(
    treated: Sequence[float],
    control: Sequence[float],
    rng: random.Random,
    samples: int = BOOTSTRAP_SAMPLES,
) -> tuple[float, float] | None:
    """Percentile interval of mean(T*) − mean(C*), each arm resampled on its own."""
    if not treated or not control:
        return None
    draws = []
    for _ in range(samples):
        t = [treated[rng.randrange(len(treated))] for _ in treated]
        c = [control[rng.randrange(len(control))] for _ in control]
        draws.append(sum(t) / len(t) - sum(c) / len(c))
    draws.sort()
    return draws[int(0.025 * (samples - 1))], draws[int(0.975 * (samples - 1))]


def effect(
    name: str, treated: Sequence[float], control: Sequence[float], rng: random.Random
) -> dict[str, Any]:
    """One outcome's row: both arms' means, the difference, its 95% interval."""
    mean_t = sum(treated) / len(treated) if treated else None
    mean_c = sum(control) / len(control) if control else None
    binary = name.startswith("win:")
    if binary:
        hits_t, hits_c = round(sum(treated)), round(sum(control))
        ci = newcombe(hits_t, len(treated), hits_c, len(control))
    else:
        ci = bootstrap_difference(treated, control, rng)
    diff = None if mean_t is None or mean_c is None else mean_t - mean_c
    return {
        "outcome": name,
        "control": _round(mean_c),
        "treated": _round(mean_t),
        "effect": _round(diff),
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
        "method": "newcombe" if binary else "bootstrap",
        "n_control": len(control),
        "n_treated": len(treated),
        "excludes_zero": ci is not None and (ci[0] > 0 or ci[1] < 0),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def effects(
    treated: Iterable[Mapping[str, float]],
    control: Iterable[Mapping[str, float]],
    seed: int = BOOTSTRAP_SEED,
) -> list[dict[str, Any]]:
    """A row per outcome both arms have, in a stable order (wins, ballots, beliefs)."""
    t_rows, c_rows = list(treated), list(control)
    names = sorted({k for r in t_rows for k in r} & {k for r in c_rows for k in r}, key=_order)
    rng = random.Random(seed)
    return [
        effect(
            name,
            [r[name] for r in t_rows if name in r],
            [r[name] for r in c_rows if name in r],
            rng,
        )
        for name in names
    ]


def _order(name: str) -> tuple[int, str]:
    kinds = ("win:", "ballots_against:", "p_truth")
    return next((i for i, k in enumerate(kinds) if name.startswith(k)), len(kinds)), name
