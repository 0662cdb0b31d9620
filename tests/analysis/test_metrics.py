"""Every behaviour metric on hand-built transcripts whose answers were worked out
by hand (tests/analysis/builders.py lists the events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.metrics import metrics_summary
from sandbox.games.four_factions.metrics import METRICS as FF_METRICS
from sandbox.games.killer.metrics import METRICS as KILLER_METRICS
from sandbox.transcript import read_game
from tests.analysis.builders import (
    FF_EVENTS,
    FF_RESULTS,
    FF_ROLES,
    FF_WHO,
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)

# metric -> contestant -> (hits, items)
KILLER_EXPECTED: dict[str, dict[str, tuple[int, int]]] = {
    # police-side ballots for a seat: 4→1 5→1 | 4→1 5→6 6→1 | 4→6 6→2 (6's blank skipped)
    "vote_accuracy": {"P": (5, 7)},
    # voted out: seat 1 (killer), seat 6 (civilian)
    "vote_success": {"P": (1, 2)},
    # seat 1 checked (a killer) and voted out afterwards
    "check_use": {"P": (1, 1)},
    # seat 1 voted out, seat 2 alive
    "killer_survival": {"K": (1, 2)},
    # night 1 target: seat 3, police
    "first_night_police": {"K": (1, 1)},
    # killers' speeches: 1 "civilian", 2 "killer", 1's last words no claim
    "self_exposure": {"K": (1, 3)},
    # claims: 4 police (true), 1 civilian (false), 2 killer (true)
    "claim_honesty": {"K": (1, 2), "P": (1, 1)},
    # seat 4 accuses 1 (killer) and 5 (civilian); seat 1's accusation is a killer's
    "accusation_accuracy": {"P": (1, 2)},
    "vouch_accuracy": {"P": (1, 1)},
    # 13 ballots, one blank (seat 6, day 1 round 1)
    "abstention": {"K": (0, 5), "P": (1, 8)},
    "tie_rate": {"K": (1, 1), "P": (1, 1)},
    "forced_draw_rate": {"K": (0, 1), "P": (0, 1)},
    # day 1: 4 accuses 1 and 5, votes 1; 1 accuses 4, votes 4 (2 accuses nobody)
    "speech_action_consistency": {"K": (1, 1), "P": (1, 1)},
}

FF_EXPECTED: dict[str, dict[str, tuple[int, int]]] = {
    # day 1 only: 1 says wolves (true), 3 says justice (false), 5 says justice (true)
    "claim_honesty": {"W": (1, 1), "O": (1, 2)},
    # 5 names 3 spies (true), 6 names 1 army (false)
    "accusation_accuracy": {"O": (1, 2)},
    # 2 protects 1 (own faction), 4 protects 5 (not)
    "protection_accuracy": {"W": (1, 1), "O": (0, 1)},
    # 1 attacks 3 (another faction), 4 attacks 3 (its own)
    "duel_efficiency": {"W": (1, 1), "O": (0, 1)},
}


@pytest.fixture
def killer_game(tmp_path: Path) -> Any:
    path = write_transcript(
        tmp_path / "k.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, KILLER_RESULTS
    )
    return read_game(path)


@pytest.fixture
def ff_game(tmp_path: Path) -> Any:
    path = write_transcript(
        tmp_path / "f.jsonl", "four_factions", FF_ROLES, FF_WHO, FF_EVENTS, FF_RESULTS
    )
    return read_game(path)


def tally(items: list[Any]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for item in items:
        hits, n = out.get(item.contestant, (0, 0))
        out[item.contestant] = (hits + int(item.value), n + 1)
    return out


@pytest.mark.parametrize("name", sorted(KILLER_EXPECTED))
def test_killer_metric(killer_game: Any, name: str) -> None:
    assert tally(list(KILLER_METRICS[name](killer_game))) == KILLER_EXPECTED[name]


@pytest.mark.parametrize("name", sorted(FF_EXPECTED))
def test_four_factions_metric(ff_game: Any, name: str) -> None:
    assert tally(list(FF_METRICS[name](ff_game))) == FF_EXPECTED[name]


def test_every_metric_has_a_hand_worked_answer() -> None:
    assert set(KILLER_EXPECTED) == set(KILLER_METRICS)
    assert set(FF_EXPECTED) | {"pair_win_day"} == set(FF_METRICS)


def test_pair_win_day_is_the_day_the_winning_pair_settled(ff_game: Any) -> None:
    items = list(FF_METRICS["pair_win_day"](ff_game))
    assert [(i.contestant, i.value) for i in items] == [("W", 2.0)]


def test_missing_claim_keys_count_as_no_claim(tmp_path: Path) -> None:
    bare = [
        (k, {x: v for x, v in d.items() if x not in ("claim", "accuse", "vouch")})
        for k, d in KILLER_EVENTS
    ]
    path = write_transcript(
        tmp_path / "bare.jsonl", "killer", KILLER_ROLES, KILLER_WHO, bare, KILLER_RESULTS
    )
    game = read_game(path)
    assert list(KILLER_METRICS["claim_honesty"](game)) == []
    assert tally(list(KILLER_METRICS["self_exposure"](game))) == {"K": (0, 3)}
    assert list(KILLER_METRICS["accusation_accuracy"](game)) == []


def test_summary_rates_and_never_a_zero_width_interval(killer_game: Any) -> None:
    summary = metrics_summary([killer_game])["killer"]
    vote = summary["vote_accuracy"]
    assert vote["overall"]["value"] == round(5 / 7, 4) and vote["overall"]["n"] == 7
    # one game with 0 of 5 blank ballots: the interval still says "not sure"
    blank = summary["abstention"]["by_contestant"]["K"]
    assert blank["value"] == 0.0
    low, high = blank["ci95"]
    assert low == 0.0 and high > 0.5
