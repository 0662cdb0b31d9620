"""Scores of a game sample, read from its transcript: the win, and the variant's
behaviour metrics restricted to the evaluated seats, as inspect metrics.

One score per sample, a dict: ``win`` (1 when the evaluated seats won, 0 for a
loss or a draw), and one key per behaviour metric (``Variant.research.metrics()``; with
the belief probe on, ``belief_accuracy`` and ``belief_brier`` too), each the
mean of that game's items for the evaluated seats, NaN without any (inspect
then leaves the sample out of that key's metrics). A game that did not finish
(aborted by provider failures, or stopped by an inspect limit) scores NaN,
but for the validity keys of a game whose transcript was written (aborted).

Every score also holds the evaluated seats' ``valid_answer_rate`` (accepted
answers over answers given), ``fallbacks`` (their decisions the referee played
for them) and ``repairs`` (their repair turns), and ``invalid`` (1 or 0). A
silent seat cannot win (``sandbox.adapters.validity``): when any of their
decisions fell back because the provider failed, or more than
``max_fallback_share`` (25 %) of them fell back, the sample is scored
``invalid`` (its answer), ``win`` and the behaviour keys NaN, so inspect
leaves it out of those metrics.

The metrics over samples follow the sandbox's own figures (docs/study-reference.md):
``win`` is inspect's ``mean`` with a 95% Wilson interval (``wilson``, one game
per sample: independent); a behaviour key's ``pooled`` is the mean over every
item of every game (not a mean of per-game means) with a 95% cluster-bootstrap
interval over games (``sandbox.analysis.metrics.figure``: the items of one
game are not independent). Both count every epoch's game as its own.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState

from sandbox.adapters.validity import (
    MAX_FALLBACK_SHARE,
    SeatTally,
    invalid_reason,
    merged,
    tallies_from,
)
from sandbox.analysis.intervals import BOOTSTRAP_SEED, wilson
from sandbox.analysis.metrics import figure, metrics_of
from sandbox.analysis.tables import belief_rows
from sandbox.core.metrics import MetricItem
from sandbox.transcript import EventRow, Transcript, read_game

WIN = "win"
VALID_ANSWER_RATE = "valid_answer_rate"
FALLBACKS = "fallbacks"
REPAIRS = "repairs"
INVALID = "invalid"  # a score key (1: the sample was not scored) and the answer
VALIDITY_KEYS = (VALID_ANSWER_RATE, FALLBACKS, REPAIRS, INVALID)
BELIEF_ACCURACY = "belief_accuracy"
BELIEF_BRIER = "belief_brier"
EVALUATED = "evaluated"  # the contestant label of the evaluated seats
OPPONENT = "opponent"
ITEMS = "items"  # score metadata: behaviour key -> this game's item values
GAME = "game"  # score metadata: the game's identity (the bootstrap's cluster)
NAN = float("nan")


def score_keys(variant: str, beliefs: bool) -> list[str]:
    """The keys of a sample's score: ``win``, the validity keys, then the
    behaviour keys."""
    keys = [WIN, *VALIDITY_KEYS, *metrics_of(variant)]
    return [*keys, BELIEF_ACCURACY, BELIEF_BRIER] if beliefs else keys


def behaviour_keys(keys: Sequence[str]) -> list[str]:
    return [k for k in keys if k != WIN and k not in VALIDITY_KEYS]


def behaviour_items(
    game: Transcript[EventRow], seats: Sequence[int], beliefs: bool
) -> dict[str, list[float]]:
    """Each behaviour key's item values for ``seats`` in one game (the
    variant's metric functions, with the seats relabelled as contestants)."""
    labels = {str(s): EVALUATED if s in seats else OPPONENT for s in game.roles}
    game.header = {**game.header, "contestants": labels}
    out = {
        name: [i.value for i in compute(game) if i.contestant == EVALUATED]
        for name, compute in metrics_of(game.variant).items()
    }
    if beliefs:
        rows = [
            r for r in belief_rows(game) if r["contestant"] == EVALUATED and r["p_true"] is not None
        ]
        out[BELIEF_ACCURACY] = [float(r["said"] == r["truth"]) for r in rows]
        out[BELIEF_BRIER] = [float(r["brier"]) for r in rows]
    return out


def win_value(results: Mapping[str, str], seats: Sequence[int]) -> float:
    """1 when every evaluated seat won, 0 otherwise (lost, drew, or mixed)."""
    return 1.0 if all(results.get(str(s)) == "win" for s in seats) else 0.0


def seats_tally(game: Transcript[EventRow], seats: Sequence[int]) -> SeatTally:
    """The evaluated seats' decisions, fallbacks and answers, as one tally."""
    found = tallies_from(game.of_kind("core.decision"), game.calls)
    return merged(found.get(s, SeatTally()) for s in seats)


def validity_values(tally: SeatTally, invalid: bool) -> dict[str, float]:
    return {
        VALID_ANSWER_RATE: tally.valid_answer_rate,
        FALLBACKS: float(tally.fallback_count),
        REPAIRS: float(tally.repairs),
        INVALID: float(invalid),
    }


def score_game(
    metadata: Mapping[str, Any],
    keys: Sequence[str],
    beliefs: bool,
    max_share: float = MAX_FALLBACK_SHARE,
) -> Score:
    """The score of one played sample, from what the solver left in its metadata."""
    path, results = metadata.get("transcript"), metadata.get("results")
    value: dict[str, float] = dict.fromkeys(keys, NAN)
    seats = [int(s) for s in metadata.get("seats") or []]
    if not path or not isinstance(results, Mapping) or metadata.get("finished") is not True:
        why = metadata.get("outcome") or "unfinished"
        explanation = "the game did not finish"
        if path and Path(str(path)).is_file():  # aborted: what the seats did still counts
            tally = seats_tally(read_game(Path(str(path))), seats)
            reason = invalid_reason(tally, max_share)
            value.update(validity_values(tally, reason is not None))
            explanation += f"; {reason}" if reason else ""
        return Score(value=value, answer=str(why), explanation=explanation)
    game = read_game(Path(str(path)))
    tally = seats_tally(game, seats)
    reason = invalid_reason(tally, max_share)
    value.update(validity_values(tally, reason is not None))
    meta: dict[str, Any] = {GAME: game.game_id, "tally": tally.as_dict()}
    if reason is not None:  # a silent seat: its side's result is not the model's
        return Score(
            value=value,
            answer=INVALID,
            explanation=f"not scored: {reason}",
            metadata={**meta, ITEMS: {}},
        )
    items = behaviour_items(game, seats, beliefs)
    value[WIN] = win_value(results, seats)
    for key in behaviour_keys(keys):
        found = items.get(key, [])
        value[key] = sum(found) / len(found) if found else NAN
    return Score(
        value=value,
        answer=str(metadata.get("result")),
        explanation=str(metadata.get("summary") or ""),
        metadata={**meta, ITEMS: items},
    )


@metric(scores="unreduced")
def wilson95() -> Metric:
    """95% Wilson interval of the share of samples scoring 1."""

    def compute(scores: list[SampleScore]) -> Value:
        hits = sum(1 for s in scores if s.score.as_float() == 1.0)
        interval = wilson(hits, len(scores))
        if interval is None:
            return {}
        return {"ci95_low": round(interval[0], 4), "ci95_high": round(interval[1], 4)}

    return compute


@metric(scores="unreduced")
def pooled(key: str) -> Metric:
    """``key``'s mean over every item of every game, with its 95%
    cluster-bootstrap interval over games and the item count."""

    def compute(scores: list[SampleScore]) -> Value:
        items = [
            MetricItem(str((s.score.metadata or {}).get(GAME, s.sample_id)), EVALUATED, value)
            for s in scores
            for value in ((s.score.metadata or {}).get(ITEMS) or {}).get(key, [])
        ]
        found = figure(items, random.Random(BOOTSTRAP_SEED))
        if found["value"] is None:
            return {}
        out: dict[str, float] = {"mean": float(found["value"]), "items": float(found["n"])}
        if found["ci95"] is not None:
            out["ci95_low"], out["ci95_high"] = map(float, found["ci95"])
        return out

    return compute


def game_scorer(
    keys: Sequence[str], beliefs: bool, max_share: float = MAX_FALLBACK_SHARE
) -> Scorer:
    """The scorer of a game task with these score keys (the variant's own)."""
    metrics: dict[str, list[Metric]] = {WIN: [mean(), wilson95()]}
    metrics.update({key: [mean()] for key in VALIDITY_KEYS})
    metrics.update({key: [pooled(key)] for key in behaviour_keys(keys)})

    @scorer(metrics=metrics, name="game")
    def game() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            return score_game(state.metadata, keys, beliefs, max_share)

        return score

    return game()
