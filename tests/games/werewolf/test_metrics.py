"""Every Werewolf behaviour metric (sandbox/games/werewolf/metrics.py) on a
hand-built transcript whose answers were worked out by hand, as
tests/analysis/test_metrics.py does for the other variants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.metrics import metrics_summary
from sandbox.games.registry import get_variant
from sandbox.games.werewolf.metrics import METRICS
from sandbox.transcript import read_game
from tests.analysis.builders import write_transcript
from tests.analysis.test_metrics import tally

# Werewolves 1 and 2 (contestant W); the seer 3, the doctor 4, villagers 5-8 (V).
ROLES = {1: "werewolf", 2: "werewolf", 3: "seer", 4: "doctor"} | {
    s: "villager" for s in (5, 6, 7, 8)
}
WHO = {s: "W" if s in (1, 2) else "V" for s in ROLES}
RESULTS = {s: "lose" if s in (1, 2) else "win" for s in ROLES}


def _speech(day: int, seat: int, claim: str = "none", **more: Any) -> tuple[str, dict[str, Any]]:
    data = {"day": day, "seat": seat, "turn": 1, "text": "x", "shown": "x", "claim": claim}
    return ("werewolf.speech", {"accuse": [], "vouch": [], **data, **more})


def _ballot(day: int, voter: int, target: int | None, *drawn: int) -> tuple[str, dict[str, Any]]:
    return ("werewolf.ballots", {"day": day, "ballots": {str(voter): target}, "drawn": list(drawn)})


def _night(
    n: int, protect: int, inspect: int, kill: int | None
) -> list[tuple[str, dict[str, Any]]]:
    wolves = [1, 2] if n == 1 else [2]
    how = "votes" if kill is not None else "nobody"
    return [
        ("werewolf.night", {"night": n}),
        ("werewolf.protection", {"night": n, "doctor": 4, "target": protect}),
        ("werewolf.inspection", {"night": n, "seer": 3, "target": inspect}),
        ("werewolf.kill_chosen", {"night": n, "target": kill, "how": how, "audience": wolves}),
    ]


EVENTS: list[tuple[str, dict[str, Any]]] = [
    # Night 1: the seer checks 5 (a villager); the pack attacks 5, whom the doctor saves.
    *_night(1, protect=5, inspect=5, kill=5),
    ("werewolf.seer_result", {"night": 1, "seer": 3, "seat": 5, "result": "villager"}),
    ("werewolf.saved", {"night": 1, "doctor": 4, "seat": 5}),
    ("werewolf.dawn", {"day": 1, "victim": None, "revealed": None}),
    # Day 1: 3 claims seer (true), 1 claims seer (false), 5 claims nothing.
    _speech(1, 3, "seer", accuse=[1]),
    _speech(1, 1, "seer"),
    _speech(1, 5),
    # Village ballots 3→1, 5→1, 8→3, 4→1 (three on a werewolf); 1 and 2 are
    # werewolves, 6 abstains, 7's ballot was drawn (WW-23): not counted.
    _ballot(1, 3, 1),
    _ballot(1, 5, 1),
    _ballot(1, 1, 3),
    _ballot(1, 6, None),
    _ballot(1, 7, 2, 7),
    _ballot(1, 8, 3),
    _ballot(1, 2, 3),
    _ballot(1, 4, 1),
    ("werewolf.exiled", {"day": 1, "seat": 1, "votes": 3, "how": "votes", "revealed": "werewolf"}),
    (
        "werewolf.last_words",
        {"day": 1, "seat": 1, "cause": "exile", "text": "", "shown": "", "claim": "villager"},
    ),
    # Night 2: the seer checks 5 again (no news); 6 is killed, the doctor guarded itself.
    *_night(2, protect=4, inspect=5, kill=6),
    ("werewolf.seer_result", {"night": 2, "seer": 3, "seat": 5, "result": "villager"}),
    ("werewolf.dawn", {"day": 2, "victim": 6, "revealed": "villager"}),
    _ballot(2, 3, 2),
    _ballot(2, 2, 3),
    ("werewolf.no_exile", {"day": 2, "reason": "tie"}),
    # Night 3: the seer finds werewolf 2; every werewolf abstains (no attack).
    *_night(3, protect=3, inspect=2, kill=None),
    ("werewolf.seer_result", {"night": 3, "seer": 3, "seat": 2, "result": "werewolf"}),
    ("werewolf.dawn", {"day": 3, "victim": None, "revealed": None}),
    *(_ballot(3, voter, 2) for voter in (3, 4, 5, 7, 8)),
    ("werewolf.exiled", {"day": 3, "seat": 2, "votes": 5, "how": "votes", "revealed": "werewolf"}),
    (
        "werewolf.roles_revealed",
        {"ending": "werewolves_eliminated", "roles": {str(s): r for s, r in ROLES.items()}},
    ),
]

# metric -> contestant -> (hits, items)
EXPECTED: dict[str, dict[str, tuple[int, int]]] = {
    # nights 1, 2, 3: seats 5, 5, 2; only seat 2 is a werewolf
    "seer_hits": {"V": (1, 3)},
    # seat 5 twice: the second check is a repeat
    "seer_new_checks": {"V": (2, 3)},
    # attacks on nights 1 (saved) and 2 (not); night 3 had no attack
    "doctor_saves": {"V": (1, 2)},
    # both werewolves exiled
    "werewolf_survival": {"W": (0, 2)},
    # day 1: 3 of 4 counted ballots; day 2: 3→2; day 3: five ballots on seat 2
    "vote_accuracy": {"V": (9, 10)},
    # 3 "seer" (true); 1 "seer" in a speech and "villager" in its last words (false)
    "claim_honesty": {"V": (1, 1), "W": (0, 2)},
    # day 1: 3 accuses 1 and votes 1 (the only speech with an accusation)
    "speech_action_consistency": {"V": (1, 1)},
}


@pytest.fixture
def game(tmp_path: Path) -> Any:
    return read_game(
        write_transcript(tmp_path / "w.jsonl", "werewolf", ROLES, WHO, EVENTS, RESULTS)
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_werewolf_metric(game: Any, name: str) -> None:
    assert tally(list(METRICS[name](game))) == EXPECTED[name]


def test_every_metric_has_a_hand_worked_answer_and_is_the_variants() -> None:
    assert set(EXPECTED) == set(METRICS)
    assert get_variant("werewolf").research.metrics() is METRICS


def test_an_unfinished_game_has_no_survival_figure(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "torn.jsonl", "werewolf", ROLES, WHO, EVENTS[:10], None)
    assert list(METRICS["werewolf_survival"](read_game(path))) == []


def test_the_summary_reports_them(game: Any) -> None:
    summary = metrics_summary([game])["werewolf"]
    assert summary["vote_accuracy"]["overall"]["value"] == 0.9
    assert summary["vote_accuracy"]["overall"]["n"] == 10
