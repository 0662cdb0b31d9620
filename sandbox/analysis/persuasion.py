"""Persuasion: how far the speeches between two belief probes of a listener
moved that listener's beliefs toward the truth (no extra model calls).

Two measures, both from the belief probes (docs/study-reference.md, "Persuasion").

**Between probes** (``persuasion_items``): for every seat L with two
consecutive probes a then b (a probe sits at the ``seq`` of the decision it
came with, or at the ``seq`` recorded on a probe-only call: it saw the events
before it):

    Δ = mean over targets probed both times of (p_true at b − p_true at a)

where p_true is the probability L gave the target's true side (1 or 0 for a
plain label; "unknown" targets are left out). The speeches by other seats
between a and b share Δ equally: each gets an item (speaker, Δ / k). A
speaker's persuasion is the mean of its items: > 0, its speeches were followed
by listeners moving toward the truth; < 0, away from it (what a deceiving
killer aims for). With a probe on every decision, two probes of a listener are
often a whole day apart; the fewer speeches between probes, the sharper the
attribution.

**Per speech** (``speech_persuasion_summary``, with ``probe_after_speech``):
each (speech, listener) pair with a probe right before and right after the
speech and nothing else the listener saw in between is one item
(tables.speech_persuasion_rows).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.analysis.metrics import Item, figure
from sandbox.analysis.tables import SPEECH_KINDS, probe_series, speech_persuasion_rows
from sandbox.transcript import EventRow, Transcript


def probes_of(game: Transcript[EventRow]) -> dict[int, list[tuple[int, dict[int, float]]]]:
    """seat -> [(seq, {target: p_true})] in game order (tables.probe_series)."""
    return probe_series(game)


def persuasion_items(game: Transcript[EventRow]) -> list[tuple[Item, str]]:
    """(item for the speaker's contestant, speaker's side) per speech and listener."""
    speeches = [(int(e["seq"]), int(e["seat"])) for e in game.of_kind(*SPEECH_KINDS) if "seat" in e]
    items: list[tuple[Item, str]] = []
    for listener, probes in probes_of(game).items():
        for (start, before), (end, after) in pairwise(probes):
            common = [t for t in before if t in after]
            between = [s for q, s in speeches if start <= q < end and s != listener]
            if not common or not between:
                continue
            delta = sum(after[t] - before[t] for t in common) / len(common)
            for speaker in between:
                who = game.contestants.get(speaker, "?")
                side = game.sides.get(speaker, "?")
                items.append((Item(game.game_id, who, delta / len(between)), side))
    return items


def persuasion_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED
) -> dict[str, Any] | None:
    """overall, by_contestant and by_side persuasion with cluster-bootstrap intervals."""
    pairs = [pair for game in games for pair in persuasion_items(game)]
    if not pairs:
        return None
    rng = random.Random(seed)
    items = [item for item, _ in pairs]
    names = sorted({i.contestant for i in items})
    sides = sorted({side for _, side in pairs})
    return {
        "overall": figure(items, rng),
        "by_contestant": {n: figure([i for i in items if i.contestant == n], rng) for n in names},
        "by_side": {s: figure([i for i, sd in pairs if sd == s], rng) for s in sides},
    }


def speech_persuasion_summary(
    games: Sequence[Transcript[EventRow]], seed: int = BOOTSTRAP_SEED
) -> dict[str, Any] | None:
    """Persuasion per speech (docs/study-reference.md): each (speech, listener) row's
    ``delta`` is an item of the speaker's contestant; overall, by_contestant,
    by_side and by_kind, with cluster-bootstrap intervals over games."""
    rows = [row for game in games for row in speech_persuasion_rows(game)]
    if not rows:
        return None
    rng = random.Random(seed)

    def items(column: str | None = None, value: str = "") -> list[Item]:
        return [
            Item(r["game_id"], str(r["speaker_contestant"]), float(r["delta"]))
            for r in rows
            if column is None or str(r[column]) == value
        ]

    def split(column: str) -> dict[str, Any]:
        names = sorted({str(r[column]) for r in rows})
        return {n: figure(items(column, n), rng) for n in names}

    return {
        "overall": figure(items(), rng),
        "by_contestant": split("speaker_contestant"),
        "by_side": split("speaker_side"),
        "by_kind": split("kind"),
        "speeches": len({(r["game_id"], r["speech_seq"]) for r in rows}),
    }
