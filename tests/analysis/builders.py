"""Hand-built transcripts with known answers (no referee involved: the metrics
read events only, so each line here is exactly what a metric sees)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def write_transcript(
    path: Path,
    variant: str,
    roles: Mapping[int, str],
    contestants: Mapping[int, str],
    events: Sequence[tuple[str, dict[str, Any]]],
    results: Mapping[int, str] | None,
    *,
    seed: int = 1,
    study: Mapping[str, Any] | None = None,
    calls: Sequence[dict[str, Any]] = (),
    name: str = "hand",
    started: str = "2026-01-01T00:00:00Z",
) -> Path:
    header: dict[str, Any] = {
        "type": "header",
        "schema": 1,
        "variant": variant,
        "seed": seed,
        "name": name,
        "config": {"variant": variant, "name": name},
        "roles": {str(s): r for s, r in roles.items()},
        "agents": {str(s): {"kind": "llm", "model": f"m/{contestants[s]}"} for s in roles},
        "contestants": {str(s): c for s, c in contestants.items()},
        "started": started,
    }
    if study is not None:
        header["study"] = dict(study)
    lines = [header]
    for seq, (kind, data) in enumerate(events):
        lines.append({"type": "event", "seq": seq, "kind": kind, "vis": "public", "data": data})
    lines.extend({"type": "call", **c} for c in calls)
    if results is not None:
        lines.append(
            {
                "type": "outcome",
                "reason": "hand",
                "results": {str(s): r for s, r in results.items()},
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


KILLER_ROLES = {1: "killer", 2: "killer", 3: "police", 4: "police", 5: "civilian", 6: "civilian"}
KILLER_WHO = {1: "K", 2: "K", 3: "P", 4: "P", 5: "P", 6: "P"}

# A Killer game with every metric's answer worked out by hand (tests/analysis/test_metrics.py).
KILLER_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("killer.kill_chosen", {"night": 1, "target": 3, "tie_break": False, "audience": [1, 2]}),
    ("killer.dawn", {"day": 1, "victim": 3, "role": None}),
    (
        "killer.check",
        {"night": 1, "suspect": 1, "answer": "killer", "tie_break": False, "audience": [3, 4]},
    ),
    (
        "killer.speech",
        {
            "day": 1,
            "seat": 4,
            "text": "1 did it",
            "context": "day",
            "claim": "police",
            "accuse": [1, 5],
            "vouch": [6],
        },
    ),
    (
        "killer.speech",
        {
            "day": 1,
            "seat": 1,
            "text": "4 lies",
            "context": "day",
            "claim": "civilian",
            "accuse": [4],
            "vouch": [],
        },
    ),
    (
        "killer.speech",
        {"day": 1, "seat": 2, "text": "fine, me", "context": "day", "claim": "killer"},
    ),
    (
        "killer.ballots",
        {
            "day": 1,
            "round": 1,
            "ballots": {"1": 4, "2": 4, "4": 1, "5": 1, "6": None},
            "tally": {"4": 2, "1": 2},
        },
    ),
    ("killer.tied", {"day": 1, "round": 1, "tied": [1, 4]}),
    (
        "killer.ballots",
        {
            "day": 1,
            "round": 2,
            "ballots": {"1": 4, "2": 4, "4": 1, "5": 6, "6": 1},
            "tally": {"4": 2, "1": 2, "6": 1},
        },
    ),
    ("killer.voted_out", {"day": 1, "seat": 1, "role": None}),
    ("killer.last_words", {"day": 1, "seat": 1, "text": "bye"}),
    ("killer.kill_chosen", {"night": 2, "target": 5, "tie_break": False, "audience": [2]}),
    ("killer.dawn", {"day": 2, "victim": 5, "role": None}),
    (
        "killer.ballots",
        {"day": 2, "round": 1, "ballots": {"2": 6, "4": 6, "6": 2}, "tally": {"6": 2, "2": 1}},
    ),
    ("killer.voted_out", {"day": 2, "seat": 6, "role": None}),
]
KILLER_RESULTS = {1: "win", 2: "win", 3: "lose", 4: "lose", 5: "lose", 6: "lose"}

FF_ROLES = {
    1: "wolves/elite",
    2: "wolves/regular",
    3: "spies/elite",
    4: "spies/regular",
    5: "justice/elite",
    6: "army/elite",
}
FF_WHO = {1: "W", 2: "W", 3: "O", 4: "O", 5: "O", 6: "O"}
FF_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("ff.phase", {"day": 1, "phase": "day", "stage": "proofs"}),
    ("ff.proofs", {"seat": 1, "am": "wolves", "speech": ""}),
    ("ff.proofs", {"seat": 3, "am": "justice", "speech": ""}),
    ("ff.proofs", {"seat": 5, "am": "justice", "speech": ""}),
    ("ff.accusation", {"seat": 5, "target": 3, "faction": "spies", "speech": ""}),
    ("ff.accusation", {"seat": 6, "target": 1, "faction": "army", "speech": ""}),
    ("ff.protection", {"seat": 2, "target": 1, "speech": ""}),
    ("ff.protection", {"seat": 4, "target": 5, "speech": ""}),
    ("ff.phase", {"day": 2, "phase": "day", "stage": "proofs"}),
    ("ff.proofs", {"seat": 6, "am": "wolves", "speech": ""}),
    ("ff.duel", {"day": 2, "half": 1, "attacker": 1, "defender": 3, "strikes": []}),
    ("ff.duel", {"day": 2, "half": 1, "attacker": 4, "defender": 3, "strikes": []}),
    ("ff.pair_settled", {"pair": "wolves+spies", "results": {"wolves": "win", "spies": "lose"}}),
]
FF_RESULTS = {1: "win", 2: "win", 3: "lose", 4: "lose", 5: "draw", 6: "draw"}
