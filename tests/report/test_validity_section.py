"""The report page's validity and Mini-Mafia sections."""

from __future__ import annotations

from pathlib import Path

from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.report.page import render_html, render_markdown
from tests.analysis.builders import (
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)


def test_the_page_shows_the_validity_warnings_seating_and_minimafia(tmp_path: Path) -> None:
    lost = {s: ("lose" if r == "win" else "win") for s, r in KILLER_RESULTS.items()}
    for name, results in (("a", KILLER_RESULTS), ("b", lost)):
        write_transcript(
            tmp_path / f"{name}.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, results
        )
    summary = summarise_games(load_games([tmp_path]), samples=20)
    page = render_html(summary, "t")
    # two games, one win each: too small to separate K and P
    assert 'class="warning validity-note">the study is too small to separate' in page
    assert '<table id="seating">' in page and "last_speaker" in page
    assert 'id="minimafia"' not in page  # not Mini-Mafia games
    summary["minimafia"] = {
        "games": 10,
        "by_contestant": {
            "K": {
                "m": 0.5,
                "m_ci95": [0.1, 0.9],
                "d": 0.0,
                "d_ci95": [-0.2, 0.2],
                "v": 1.0,
                "v_ci95": [0.8, 1.3],
                "games": {"mafioso": 5, "detective": 5, "villager": 5},
            }
        },
        "cross_validation": {
            "folds": 5,
            "games": 10,
            "brier": {"model": 0.2, "coin": 0.25, "base_rate": 0.24, "mafioso_rate": 0.22},
            "reduction": {"coin": 0.2, "base_rate": 0.1667, "mafioso_rate": 0.0909},
        },
    }
    page = render_html(summary, "t")
    assert '<table id="minimafia">' in page and "0.500 [0.100–0.900]" in page
    assert "coin 0.2500 (20.0% reduction)" in page
    markdown = render_markdown(summary, "t")
    assert "## Validity" in markdown and "## Mini-Mafia" in markdown
    assert "> the study is too small to separate" in markdown
