"""People as contestants and the detectability table (issue 39, item 4):
hand-built Killer games with a pseudonymous person (and, in the second, two)
whose end answers to "which seats were played by AI?" are worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.detect import ANSWERS, detectability
from sandbox.analysis.load import load_games
from sandbox.analysis.ratings import rate
from sandbox.analysis.summary import summarise_games
from sandbox.report.page import render_html, render_markdown
from sandbox.transcript import read_game, read_transcript
from tests.analysis.builders import KILLER_EVENTS, KILLER_ROLES, write_transcript

PERSON, OTHER = "p-7f3a", "p-19c2"


def game(
    path: Path, people: dict[int, str], answers: dict[int, list[int]] | None, won: str
) -> Path:
    """A Killer game: seats 1-2 the model K (killers), 4-6 the model P, and
    ``people`` (seat -> id) in place of models; ``won``: the side that won."""
    who = {1: "K", 2: "K", 3: "P", 4: "P", 5: "P", 6: "P", **people}
    results = {
        s: ("win" if (r == "killer") == (won == "killer") else "lose")
        for s, r in KILLER_ROLES.items()
    }
    write_transcript(
        path, "killer", KILLER_ROLES, who, KILLER_EVENTS[:2], results, seed=len(people)
    )
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for seat in people:  # a person's seat, as a study's browser seat describes it
        lines[0]["agents"][str(seat)] = {"kind": "human", "interface": "browser"}
    lines[0]["study"] = {"name": "s", "people": sorted(people.values()), "blind": True}
    if answers is not None:
        lines[-1][ANSWERS] = {str(s): {"ai_seats": named} for s, named in answers.items()}
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def wilson_by_hand(x: int, n: int) -> list[float]:
    """(p + z²/2n ± z√(p(1−p)/n + z²/4n²)) / (1 + z²/n), z = 1.96 (two-sided 95%)."""
    z, p = 1.959963984540054, x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(centre - half, 4), round(centre + half, 4)]


@pytest.fixture
def games(tmp_path: Path) -> list[Path]:
    return [
        # one person at seat 3 names 1, 2 and 5 (and, ignored, its own seat and a seat
        # the game does not have): every other seat is a model's
        game(tmp_path / "g1.jsonl", {3: PERSON}, {3: [1, 2, 5, 3, 9]}, "police"),
        # two people (3 and 4): seat 3 names 1; seat 4 names 1 and 3 (a person: a false alarm)
        game(tmp_path / "g2.jsonl", {3: PERSON, 4: OTHER}, {3: [1], 4: [1, 3]}, "killer"),
    ]


def test_the_table_counts_ai_seats_named_against_chance(games: list[Path]) -> None:
    found = detectability([read_game(p) for p in games])
    assert found is not None and found["games"] == 2
    overall = found["overall"]
    # hits 3 + 1 + 1 of 5 + 4 + 4 AI seats; chance Σ|A|·|N|/|O| = 5·3/5 + 4·1/5 + 4·2/5 = 5.4
    assert (overall["named"], overall["of"], overall["answers"]) == (5, 13, 3)
    assert overall["share"] == round(5 / 13, 4)
    assert overall["ci95"] == wilson_by_hand(5, 13)
    assert overall["chance"] == round(5.4 / 13, 4)
    assert overall["above_chance"] is False
    # people's seats named as AI: seat 4 named seat 3, of 0 + 1 + 1 people's seats
    assert (overall["false_alarms"]["named"], overall["false_alarms"]["of"]) == (1, 2)
    mine, theirs = found["by_person"][PERSON], found["by_person"][OTHER]
    assert (mine["named"], mine["of"], mine["chance"]) == (4, 9, round(3.8 / 9, 4))
    assert (theirs["named"], theirs["of"], theirs["chance"]) == (1, 4, 0.4)
    # by model: K's seats named 2 + 1 + 1 of 6, P's 1 + 0 + 0 of 7; chance per seat |N|/|O|
    k, p = found["by_model"]["K"], found["by_model"]["P"]
    assert (k["named"], k["of"], k["chance"]) == (4, 6, 0.4)
    assert (p["named"], p["of"], p["chance"]) == (1, 7, round(3.0 / 7, 4))
    assert k["ci95"] == wilson_by_hand(4, 6)


def test_a_share_whose_interval_clears_chance_is_above_it(tmp_path: Path) -> None:
    """Ten games, each answer naming exactly the two killers' seats of 5 others,
    4 of them models' (seat 4: a second person): 20 of 40 AI seats named, chance
    (4·2/5)·10/40 = 0.4; the 95% Wilson low end (0.352) does not clear it; with
    every AI seat named (40 of 40) it does."""
    half = [
        game(tmp_path / f"h{i}.jsonl", {3: PERSON, 4: OTHER}, {3: [1, 2]}, "police")
        for i in range(10)
    ]
    found = detectability([read_game(p) for p in half])
    assert found is not None
    assert (found["overall"]["named"], found["overall"]["of"]) == (20, 40)
    assert found["overall"]["chance"] == 0.4 and not found["overall"]["above_chance"]
    every = [
        game(tmp_path / f"e{i}.jsonl", {3: PERSON, 4: OTHER}, {3: [1, 2, 5, 6]}, "police")
        for i in range(10)
    ]
    found = detectability([read_game(p) for p in every])
    assert found is not None and found["overall"]["chance"] == 0.8
    assert found["overall"]["ci95"] == wilson_by_hand(40, 40)
    assert found["overall"]["above_chance"] is True


def test_games_without_answers_have_no_table_and_still_read(tmp_path: Path) -> None:
    path = game(tmp_path / "g.jsonl", {3: PERSON}, None, "police")
    assert detectability([read_game(path)]) is None
    # the answers ride on the outcome line (extra keys are kept): the engine's reader reads it
    answered = game(tmp_path / "a.jsonl", {3: PERSON}, {3: [1]}, "police")
    assert read_transcript(answered).outcome is not None


def test_the_person_is_rated_with_the_models(games: list[Path]) -> None:
    ratings = rate([read_game(p) for p in games], samples=50)
    assert set(ratings) == {"K", "P", PERSON, OTHER}
    mine = ratings[PERSON]
    assert mine["games"] == 2
    low, high = mine["elo_ci95"]
    assert low <= mine["elo"] <= high
    assert mine["openskill_mu_ci95"] is not None


def test_the_table_joins_the_summary_and_the_report(games: list[Path]) -> None:
    summary = summarise_games(load_games([p.parent for p in games[:1]]), samples=20)
    found: dict[str, Any] = summary["detectability"]
    assert found["overall"]["of"] == 13
    assert PERSON in summary["ratings"]
    html = render_html(summary, "people")
    assert 'id="detectability"' in html and "person p-7f3a" in html
    assert "people named 5 of 13 AI seats" in html
    assert "not above chance (41.5%)" in html
    md = render_markdown(summary, "people")
    assert "## People: which seats were AI?" in md and "| seats of K | 4/6 |" in md
