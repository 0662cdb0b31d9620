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
                "games": {"mafioso": 5, "detective": 5, "town": 5},
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


def test_the_page_draws_deceive_against_detect(tmp_path: Path) -> None:
    write_transcript(
        tmp_path / "a.jsonl", "killer", KILLER_ROLES, KILLER_WHO, KILLER_EVENTS, KILLER_RESULTS
    )
    summary = summarise_games(load_games([tmp_path]), samples=20)

    def part(elo: float) -> dict[str, object]:
        return {"elo": elo, "elo_ci95": [elo - 50, elo + 50], "duels": 12}

    summary["deception"] = {
        "by_contestant": {
            "K": {"deceive": part(1560.0), "detect": part(1540.0)},
            "P": {"deceive": part(1440.0), "detect": part(1460.0)},
            "Q": {"deceive": part(1500.0), "detect": None},
        },
        "rank_correlation": {"spearman": 1.0, "ci95": [1.0, 1.0], "contestants": 2},
    }
    page = render_html(summary, "t")
    assert '<table id="deception">' in page and "1560.0 [1510.0, 1610.0] (12)" in page
    assert 'id="chart-deception"' in page and 'src="data:image/png;base64,' in page
    assert "Spearman&#x27;s ρ between deceive and detect: 1.0 [1.0, 1.0]" in page
    assert "## Deceive and detect" in render_markdown(summary, "t")
