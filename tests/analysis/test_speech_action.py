"""Speech–action consistency on hand-built transcripts: a speech's structured
accusations against the same seat's next ballot that day (Killer KG-8/KG-9/
KG-14, Werewolf WW-12/WW-14). Every answer below was worked out by hand."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from sandbox.analysis.metrics import figure, items_of
from sandbox.games.killer.metrics import METRICS as KILLER
from sandbox.games.killer.metrics import speech_vote_pairs as killer_pairs
from sandbox.games.werewolf.metrics import METRICS as WEREWOLF
from sandbox.games.werewolf.metrics import speech_vote_pairs as werewolf_pairs
from sandbox.transcript import read_game
from tests.analysis.builders import write_transcript
from tests.analysis.test_metrics import tally

K_ROLES = {1: "killer", 2: "killer", 3: "police", 4: "police"} | {s: "civilian" for s in (5, 6, 7)}
K_WHO = {s: "K" if s in (1, 2) else "P" for s in K_ROLES}


def speech(day: int, seat: int, accuse: list[int]) -> tuple[str, dict[str, Any]]:
    data = {"day": day, "seat": seat, "text": "x", "context": "day", "claim": "none"}
    return ("killer.speech", {**data, "accuse": accuse, "vouch": []})


def ballots(day: int, rnd: int, cast: dict[int, int | None]) -> tuple[str, dict[str, Any]]:
    return (
        "killer.ballots",
        {"day": day, "round": rnd, "ballots": {str(s): t for s, t in cast.items()}, "tally": {}},
    )


KILLER_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("killer.dawn", {"day": 1, "victim": 7, "role": None}),
    speech(1, 3, [1]),  # votes 1: consistent
    speech(1, 5, [2, 6]),  # votes 6: consistent (any accused seat counts)
    speech(1, 1, [3]),  # votes 4: not consistent
    speech(1, 6, [5]),  # votes nobody: not consistent
    speech(1, 4, [7]),  # 7 died at dawn: no pair
    speech(1, 2, [2]),  # accuses itself only: no pair
    speech(1, 7, []),  # no accusation: no pair
    ballots(1, 1, {1: 4, 2: 3, 3: 1, 4: 1, 5: 6, 6: None}),
    ballots(1, 2, {1: 3, 3: 2, 5: 2}),  # the runoff is not the next ballot of day-1 speakers
    ("killer.voted_out", {"day": 1, "seat": 4, "role": None}),
    speech(2, 3, [2]),  # day 2: no ballot that day (the game ended): no pair
    ("killer.day_limit", {"day": 2}),
]


def test_killer_pairs_and_consistency(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "k.jsonl", "killer", K_ROLES, K_WHO, KILLER_EVENTS, {s: "draw" for s in K_ROLES}
    )
    game = read_game(path)
    assert list(killer_pairs(game)) == [
        (3, {1}, 1),
        (5, {2, 6}, 6),
        (1, {3}, 4),
        (6, {5}, None),
    ]
    items = list(KILLER["speech_action_consistency"](game))
    assert tally(items) == {"P": (2, 3), "K": (0, 1)}
    # The figure is the share of consistent pairs, 2 of 4, with its interval.
    overall = figure(items_of([game], KILLER["speech_action_consistency"]), random.Random(0))
    assert overall["value"] == 0.5 and overall["n"] == 4
    low, high = overall["ci95"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0


W_ROLES = {1: "werewolf", 2: "werewolf", 3: "seer", 4: "doctor", 5: "villager", 6: "villager"}
W_WHO = {s: "W" if s in (1, 2) else "V" for s in W_ROLES}


def w_speech(day: int, seat: int, accuse: list[int]) -> tuple[str, dict[str, Any]]:
    data = {"day": day, "seat": seat, "turn": 1, "text": "x", "shown": "x", "claim": "none"}
    return ("werewolf.speech", {**data, "accuse": accuse, "vouch": []})


def w_ballot(day: int, voter: int, target: int | None, *drawn: int) -> tuple[str, dict[str, Any]]:
    return ("werewolf.ballots", {"day": day, "ballots": {str(voter): target}, "drawn": list(drawn)})


WEREWOLF_EVENTS: list[tuple[str, dict[str, Any]]] = [
    ("werewolf.dawn", {"day": 1, "victim": 6, "revealed": None}),
    w_speech(1, 3, [1, 6]),  # 6 is no candidate; votes 1: consistent
    w_speech(1, 1, [3]),  # votes 5: not consistent
    w_speech(1, 5, [2]),  # its ballot was drawn (WW-23): no pair
    w_speech(1, 4, [6]),  # only a dead seat accused: no pair
    (
        "werewolf.vote_opened",
        {"day": 1, "mode": "sequential", "order": [3, 1, 5, 4], "candidates": [1, 2, 3, 4, 5]},
    ),
    w_ballot(1, 3, 1),
    w_ballot(1, 1, 5),
    w_ballot(1, 5, 3, 5),
    w_ballot(1, 4, 1),
]


def test_werewolf_pairs_and_consistency(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "w.jsonl", "werewolf", W_ROLES, W_WHO, WEREWOLF_EVENTS, None)
    game = read_game(path)
    assert list(werewolf_pairs(game)) == [(3, {1}, 1), (1, {3}, 5)]
    assert tally(list(WEREWOLF["speech_action_consistency"](game))) == {"V": (1, 1), "W": (0, 1)}
