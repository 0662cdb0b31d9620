"""Golden playthroughs for every registered variant.

Regenerate (after an intended rule or view change; review the diff!):

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/testing/test_golden.py -q

Each existing file keeps its config and seed and is re-recorded; a variant with
no file gets tests/testing/golden/<variant>/default.json (its default config, seed 1).
To add a case, write a file with just {"config": {...}, "seed": N} and regenerate.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.game import Game
from sandbox.games.registry import get_variant, variant_names
from tests.testing.golden import (
    GOLDEN_DIR,
    ViewTracker,
    golden_files,
    record,
    view_json,
    write,
)

UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _regenerate(variant: str) -> None:
    files = golden_files(variant) or [GOLDEN_DIR / variant / "default.json"]
    for path in files:
        old = json.loads(path.read_text()) if path.exists() else {"config": {}, "seed": 1}
        write(path, record(get_variant(variant), old["config"], old["seed"]))


def _cases() -> list[tuple[str, Path]]:
    return [(v, p) for v in variant_names() for p in golden_files(v)]


@pytest.mark.parametrize("variant", variant_names())
def test_every_variant_has_a_golden_file(variant: str) -> None:
    if UPDATE:
        _regenerate(variant)
    assert golden_files(variant), (
        f"no golden playthrough for {variant!r}: run UPDATE_GOLDEN=1 pytest {__file__}"
    )


@pytest.mark.parametrize(("variant", "path"), _cases(), ids=lambda x: getattr(x, "stem", x))
def test_golden_replay_reproduces_events_and_views(variant: str, path: Path) -> None:
    case: dict[str, Any] = json.loads(path.read_text())
    v = get_variant(variant)
    game = Game.new(v, v.parse_config(case["config"]), case["seed"])
    tracker = ViewTracker()
    snapshots = iter(case["snapshots"])
    _check_snapshot(game, tracker, next(snapshots))
    for entry in case["decisions"]:
        step = game.step
        pending = {r.id: r for r in game.pending()}
        assert entry["request_id"] in pending, f"request {entry['request_id']} not open"
        assert pending[entry["request_id"]].seat == entry["seat"]
        if "fallback" in entry:
            game.submit_fallback(entry["request_id"], entry["fallback"])
        else:
            game.submit(entry["request_id"], entry["payload"])
        if game.step != step or game.over:
            _check_snapshot(game, tracker, next(snapshots))
    assert next(snapshots, None) is None, "golden file has more snapshots than the replay"
    assert game.over
    assert [json.loads(json.dumps(e.to_json())) for e in game.events] == case["events"]


def _check_snapshot(game: Game, tracker: ViewTracker, snap: dict[str, Any]) -> None:
    assert (snap["step"], snap["over"]) == (game.step, game.over)
    for seat in game.seats:
        delta = dict(snap["views"][str(seat)])
        meta = delta.pop("_meta")
        expected = {**tracker.apply(seat, delta), **meta}
        view = game.view(seat)
        actual = view_json(view)
        if game.over:
            assert actual == view.to_json()  # the fast form is the official one
        actual = json.loads(json.dumps(actual))
        assert actual == expected, f"view of seat {seat} differs at step {game.step}"
