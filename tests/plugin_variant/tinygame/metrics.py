"""Tiny game's one behaviour metric, from a transcript's events alone:
``TinyGame.metrics()`` gives :data:`METRICS` to study summaries and reports."""

from __future__ import annotations

from collections.abc import Iterator

from sandbox.core.metrics import GameRecord, Metric, MetricItem
from tinygame.info import FOX, HEN


def fox_votes(game: GameRecord) -> Iterator[MetricItem]:
    """Ballots cast by hens for a seat: the share naming the fox."""
    for event in game.of_kind("tinygame.ballots"):
        for voter, target in (event.get("ballots") or {}).items():
            if target is not None and game.roles.get(int(voter)) == HEN:
                hit = game.roles.get(int(target)) == FOX
                yield MetricItem(game.game_id, game.contestants.get(int(voter), "?"), float(hit))


METRICS: dict[str, Metric] = {"fox_votes": fox_votes}
