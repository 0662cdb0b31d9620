"""Probability probes and persuasion per speech on hand-built transcripts whose
answers are worked out here by hand (docs/study-reference.md, "Belief probes" and
"Persuasion per speech")."""

from __future__ import annotations

import base64
import csv
import math
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis.export import export
from sandbox.analysis.load import load_games
from sandbox.analysis.persuasion import speech_persuasion_summary
from sandbox.analysis.summary import calibration, summarise_games
from sandbox.analysis.tables import belief_rows, speech_persuasion_rows
from sandbox.report.page import write_report
from sandbox.transcript import read_game
from tests.analysis.builders import KILLER_RESULTS, KILLER_ROLES, KILLER_WHO, write_transcript

# Seats 1, 2 killers (contestant K); 3, 4 police and 5, 6 civilians (contestant P).


def decision(seat: int, request: str, kind: str = "speech") -> tuple[str, dict[str, Any]]:
    return (
        "core.decision",
        {
            "seat": seat,
            "request_id": request,
            "decision": kind,
            "payload": {},
            "fallback": False,
            "fallback_reason": "",
        },
    )


def speech(seat: int) -> tuple[str, dict[str, Any]]:
    return ("killer.speech", {"day": 1, "seat": seat, "text": "...", "context": "day"})


STEP: tuple[str, dict[str, Any]] = ("core.step", {"step": 0})
EVENTS = [
    ("killer.phase", {"day": 1, "phase": "speeches"}),  # 0
    decision(4, "s4"),  # 1
    speech(4),  # 2
    STEP,  # 3
    decision(1, "s1"),  # 4
    speech(1),  # 5
    STEP,  # 6
    ("killer.voted_out", {"day": 1, "seat": 6, "role": None}),  # 7: news between probes
    STEP,  # 8
    decision(2, "s2"),  # 9
    speech(2),  # 10
    STEP,  # 11
    decision(3, "v3", "vote"),  # 12
]


def spread(killer: float, police: float, civilian: float) -> dict[str, float]:
    return {"killer": killer, "police": police, "civilian": civilian}


def probe(seat: int, seq: int, beliefs: dict[str, Any]) -> dict[str, Any]:
    return {
        "seat": seat,
        "request_id": f"probe:{seq}:{seat}",
        "decision": "belief_probe",
        "probe": "after_speech",
        "seq": seq,
        "model": "m",
        "beliefs": beliefs,
    }


CALLS = [
    # listener 3 about the killers 1 and 2
    probe(3, 1, {"1": spread(0.2, 0.3, 0.5), "2": spread(0.5, 0.25, 0.25)}),
    probe(3, 4, {"1": spread(0.6, 0.2, 0.2), "2": spread(0.4, 0.3, 0.3)}),
    probe(3, 7, {"1": spread(0.3, 0.3, 0.4), "2": spread(0.4, 0.3, 0.3)}),
    probe(3, 12, {"1": spread(0.9, 0.05, 0.05), "2": spread(0.9, 0.05, 0.05)}),
    # listener 5 about killer 1
    probe(5, 1, {"1": spread(0.1, 0.45, 0.45)}),
    probe(5, 4, {"1": spread(0.4, 0.3, 0.3)}),
    # the speaker 4 itself: never a listener of its own speech
    probe(4, 1, {"1": spread(0.1, 0.45, 0.45)}),
    probe(4, 4, {"1": spread(0.9, 0.05, 0.05)}),
]


@pytest.fixture
def game(tmp_path: Path) -> Any:
    path = write_transcript(
        tmp_path / "g.jsonl",
        "killer",
        KILLER_ROLES,
        KILLER_WHO,
        EVENTS,
        KILLER_RESULTS,
        calls=CALLS,
    )
    return read_game(path)


def test_each_speech_is_credited_with_the_change_right_around_it(game: Any) -> None:
    rows = speech_persuasion_rows(game)
    got = sorted(
        (
            r["speech_seq"],
            r["speaker"],
            r["listener"],
            round(r["delta"], 6),
            None if r["delta_about_speaker"] is None else round(r["delta_about_speaker"], 6),
        )
        for r in rows
    )
    assert got == [
        # speech 4 (seq 2): listener 3 ((.6-.2) + (.4-.5)) / 2; listener 5 .4 - .1
        (2, 4, 3, 0.15, None),
        (2, 4, 5, 0.3, None),
        # speech 1 (seq 5): listener 3 ((.3-.6) + (.4-.4)) / 2, about seat 1 itself -.3;
        # listener 5 has no probe after it
        (5, 1, 3, -0.15, -0.3),
        # speech 2 (seq 10): the vote result (seq 7) lies between listener 3's
        # probes at 7 and 12, so the change is not the speech's alone: no row
    ]
    first = next(r for r in rows if r["listener"] == 5)
    assert (first["before_seq"], first["after_seq"], first["targets"]) == (1, 4, 1)
    assert (first["speaker_contestant"], first["speaker_side"]) == ("P", "police")
    assert (first["listener_contestant"], first["day"], first["kind"]) == ("P", 1, "killer.speech")


def test_speech_persuasion_summary_by_speaker_contestant_and_side(game: Any) -> None:
    summary = speech_persuasion_summary([game])
    assert summary is not None
    assert summary["overall"]["n"] == 3 and summary["speeches"] == 2
    assert summary["overall"]["value"] == pytest.approx(round((0.15 + 0.3 - 0.15) / 3, 4))
    assert summary["by_contestant"]["P"]["value"] == pytest.approx(0.225)
    assert summary["by_contestant"]["K"]["value"] == pytest.approx(-0.15)
    assert summary["by_side"]["killer"]["n"] == 1 and summary["by_side"]["police"]["n"] == 2
    ci = summary["by_contestant"]["P"]["ci95"]
    assert ci is not None and ci[0] <= 0.225 <= ci[1]  # one game: the interval is its value


def test_no_probes_no_persuasion(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "n.jsonl", "killer", KILLER_ROLES, KILLER_WHO, EVENTS, KILLER_RESULTS
    )
    assert speech_persuasion_summary([read_game(path)]) is None


# ----------------------------------------------------------- calibration
CAL_EVENTS = [
    ("killer.phase", {"day": 1, "phase": "speeches"}),
    decision(3, "a"),
    ("killer.phase", {"day": 2, "phase": "speeches"}),
    decision(4, "b"),
]
CAL_CALLS = [
    {
        "seat": 3,
        "request_id": "a",
        "model": "m",
        "beliefs": {"1": spread(0.8, 0.1, 0.1), "5": spread(0.5, 0.2, 0.3)},
    },
    probe(4, 3, {"2": spread(0.0, 0.7, 0.3)}),
]


def test_brier_log_loss_and_ece_of_probabilities(tmp_path: Path) -> None:
    path = write_transcript(
        tmp_path / "c.jsonl",
        "killer",
        KILLER_ROLES,
        KILLER_WHO,
        CAL_EVENTS,
        KILLER_RESULTS,
        calls=CAL_CALLS,
    )
    game = read_game(path)
    rows = {r["target"]: r for r in belief_rows(game)}
    # target 1 (killer) .8 right; target 5 (civilian) said killer .5; target 2 (killer) p 0
    assert rows[1]["brier"] == pytest.approx(0.04 + 0.01 + 0.01)
    assert rows[5]["brier"] == pytest.approx(0.25 + 0.04 + 0.49)
    assert rows[2]["brier"] == pytest.approx(1 + 0.49 + 0.09)
    assert rows[2]["log_loss"] == pytest.approx(-math.log(0.001))  # floored, not infinite
    assert (rows[1]["probe"], rows[1]["seq"], rows[1]["day"]) == ("decision", 1, 1)
    assert (rows[2]["probe"], rows[2]["seq"], rows[2]["day"]) == ("after_speech", 3, 2)
    figures = calibration([game])
    assert figures is not None
    overall = figures["overall"]
    assert overall["accuracy"] == pytest.approx(round(1 / 3, 4))
    assert overall["brier"] == pytest.approx(round((0.06 + 0.78 + 1.58) / 3, 4))
    logs = -math.log(0.8) - math.log(0.3) - math.log(0.001)
    assert overall["log_loss"] == pytest.approx(round(logs / 3, 4))
    # three single-forecast bins: |1 - .8|, |0 - .5|, |0 - .7|, each weighing 1/3
    assert overall["ece"] == pytest.approx(round((0.2 + 0.5 + 0.7) / 3, 4))
    assert set(figures["by_day"]) == {"1", "2"}
    # one game: its clusters cannot spread, so the interval is Wilson's over 1 game
    assert figures["by_day"]["1"]["accuracy"] == 0.5
    low, high = figures["by_day"]["1"]["accuracy_ci95"]
    assert 0 <= low < 0.5 < high <= 1


def test_export_writes_the_persuasion_table(game: Any, tmp_path: Path) -> None:
    written = export([game], tmp_path / "out", "csv")
    assert tmp_path / "out" / "persuasion.csv" in written
    with (tmp_path / "out" / "persuasion.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["speech_seq"], r["speaker"], r["listener"]) for r in rows] == [
        ("2", "4", "3"),
        ("2", "4", "5"),
        ("5", "1", "3"),
    ]
    assert [float(r["delta"]) for r in rows] == pytest.approx([0.15, 0.3, -0.15])
    with (tmp_path / "out" / "beliefs.csv").open(encoding="utf-8") as handle:
        beliefs = list(csv.DictReader(handle))
    assert {"probe", "seq", "log_loss", "distribution"} <= set(beliefs[0])


def test_the_report_shows_calibration_and_persuasion_per_speech(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    folder = tmp_path / "games"
    folder.mkdir()
    write_transcript(
        folder / "g.jsonl", "killer", KILLER_ROLES, KILLER_WHO, EVENTS, KILLER_RESULTS, calls=CALLS
    )
    summary = summarise_games(load_games([folder]))
    out = tmp_path / "report.html"
    write_report(summary, out, "probes")
    page = out.read_text(encoding="utf-8")
    table = page.split('id="speech-persuasion"', 1)[1].split("</table>", 1)[0]
    assert "<td>P</td><td>+0.225</td>" in table and "<td>K</td><td>-0.150</td>" in table
    assert 'id="calibration"' in page
    chart = page.split('id="chart-speech-persuasion"', 1)[1].split('src="', 1)[1].split('"', 1)[0]
    assert base64.b64decode(chart.removeprefix("data:image/png;base64,")).startswith(b"\x89PNG")
    assert 'id="chart-belief-accuracy"' in page
    markdown = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "## Persuasion per speech" in markdown and "| P | +0.225 |" in markdown
