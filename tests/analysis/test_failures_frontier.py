"""Rule failures (which games hinged on a loser's fallback, the ratings without
them) and the cost–rating frontier, on hand-built cases with known answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sandbox.analysis.failures import failure_summary, hinged, rule_failures, without_hinged
from sandbox.analysis.frontier import frontier, pareto_set
from sandbox.analysis.load import load_games
from sandbox.analysis.ratings import rate
from sandbox.analysis.summary import summarise_games, without_failures
from tests.analysis.builders import write_transcript

ROLES = {1: "killer", 2: "police", 3: "civilian"}
WIN_KILLER = {1: "win", 2: "lose", 3: "lose"}
WIN_POLICE = {1: "lose", 2: "win", 3: "win"}


def decision(seat: int, name: str, reason: str = "") -> tuple[str, dict[str, Any]]:
    return (
        "core.decision",
        {
            "seat": seat,
            "request_id": f"1.{seat}.{name}",
            "decision": name,
            "payload": {},
            "fallback": bool(reason),
            "fallback_reason": reason,
        },
    )


def game(
    folder: Path,
    n: int,
    killer: str,
    police: str,
    results: dict[int, str],
    events: list[tuple[str, dict[str, Any]]],
) -> Path:
    return write_transcript(
        folder / f"g{n}.jsonl",
        "killer",
        ROLES,
        {1: killer, 2: police, 3: police},
        events,
        results,
        seed=n,
        study={"name": "s", "cell": f"killer={killer},police={police}"},
    )


def four_games(folder: Path) -> None:
    """X and Y meet four times. Game 0: X (killer) wins while Y's police seat 3
    answered a vote invalidly — hinged. Game 1: Y wins, its own seat timed out
    (a winner's failure: not hinged). Game 2: Y wins; X's seat fell back only
    because a script ran out ('exhausted' is no rule failure). Game 3: Y wins cleanly."""
    game(folder, 0, "X", "Y", WIN_KILLER, [decision(1, "vote"), decision(3, "vote", "invalid")])
    game(folder, 1, "Y", "X", WIN_KILLER, [decision(1, "kill", "timeout")])
    game(folder, 2, "X", "Y", WIN_POLICE, [decision(1, "vote", "exhausted")])
    game(folder, 3, "Y", "X", WIN_KILLER, [decision(2, "vote")])


def test_which_games_hinged_on_a_losers_rule_failure(tmp_path: Path) -> None:
    four_games(tmp_path)
    games = sorted(load_games([tmp_path]).games, key=lambda g: g.header["seed"])
    assert [hinged(g) for g in games] == [True, False, False, False]
    assert [len(rule_failures(g)) for g in games] == [1, 1, 0, 0]
    assert rule_failures(games[0])[0] == {
        "seat": 3,
        "contestant": "Y",
        "decision": "vote",
        "reason": "invalid",
        "seq": 1,
    }
    found = failure_summary(games)
    assert found["hinged_games"] == ["study:s:killer=X,police=Y:0"]
    x, y = found["by_contestant"]["X"], found["by_contestant"]["Y"]
    assert (x["failures"], x["won_hinged"], x["lost_hinged"], x["games"]) == (0, 1, 0, 4)
    assert (y["failures"], y["by_reason"], y["games_with_failure"]) == (
        2,
        {"invalid": 1, "timeout": 1},
        2,
    )
    assert (y["won_hinged"], y["lost_hinged"]) == (0, 1)
    assert [g.header["seed"] for g in without_hinged(games)] == [1, 2, 3]


def test_a_draw_or_a_game_nobody_won_never_hinges(tmp_path: Path) -> None:
    draw = {1: "draw", 2: "draw", 3: "draw"}
    game(tmp_path, 0, "X", "Y", draw, [decision(3, "vote", "provider")])
    (only,) = load_games([tmp_path]).games
    assert len(rule_failures(only)) == 1 and not hinged(only)


def test_the_second_table_leaves_out_the_hinged_game_and_shows_the_change(
    tmp_path: Path,
) -> None:
    four_games(tmp_path)
    games = load_games([tmp_path]).games
    full = rate(games, samples=20)
    # X won 1 of 4 with the hinged game, 0 of 3 without it
    clean = without_failures(games, full, {}, seed=1, samples=20)
    assert clean["excluded"] == 1 and clean["games"] == 3
    assert clean["ratings"] == rate([g for g in games if g.header["seed"] != 0], samples=20)
    assert clean["ratings"]["X"]["elo"] < full["X"]["elo"]
    change = clean["change"]["X"]
    assert change["elo"] == round(clean["ratings"]["X"]["elo"] - full["X"]["elo"], 1) < 0
    assert clean["change"]["Y"]["elo"] > 0


def test_with_nothing_hinged_both_tables_are_the_same(tmp_path: Path) -> None:
    game(tmp_path, 0, "X", "Y", WIN_KILLER, [decision(1, "vote", "invalid")])  # winner's own
    game(tmp_path, 1, "Y", "X", WIN_POLICE, [])
    summary = summarise_games(load_games([tmp_path]), samples=20)
    clean = summary["ratings_without_failures"]
    assert clean["excluded"] == 0 and clean["ratings"] == summary["ratings"]
    assert all(
        c == {"elo": 0.0, "openskill_mu": 0.0, "nash": 0.0} for c in clean["change"].values()
    )


def test_pareto_set_by_hand() -> None:
    points = {
        "A": (1600.0, 0.10),  # best rating
        "B": (1500.0, 0.05),
        "C": (1550.0, 0.20),  # beaten by A: higher rating for less
        "D": (1500.0, 0.05),  # equal to B: neither dominates the other
        "E": (1400.0, 0.00),  # cheapest
        "F": (1400.0, 0.01),  # as good as E, dearer
        "G": (1600.0, 0.12),  # as good as A, dearer
    }
    assert pareto_set(points) == {"A", "B", "D", "E"}
    assert pareto_set({}) == set()
    assert pareto_set({"only": (1.0, 1.0)}) == {"only"}


def test_frontier_per_game_from_usage() -> None:
    ratings = {
        "gpt": {"elo": 1600.0, "elo_ci95": [1500.0, 1700.0]},
        "small": {"elo": 1450.0, "elo_ci95": [1400.0, 1500.0]},
        "bot": {"elo": 1500.0, "elo_ci95": [1450.0, 1550.0]},
    }
    usage = {
        "gpt": {"games": 4, "cost": 0.4, "tokens_in": 3000, "tokens_out": 1000},
        "small": {"games": 4, "cost": 0.04, "tokens_in": 300, "tokens_out": 100},
        "bot": {"games": 4, "cost": 0.0, "tokens_in": 0, "tokens_out": 0},
    }
    rows = frontier(ratings, usage)["by_contestant"]
    assert rows["gpt"]["cost_per_game"] == 0.1 and rows["gpt"]["tokens_per_game"] == 1000.0
    assert {w for w, r in rows.items() if r["pareto_cost"]} == {"gpt", "bot"}
    assert {w for w, r in rows.items() if r["pareto_tokens"]} == {"gpt", "bot"}
    assert not rows["small"]["pareto_cost"]  # the bot is rated higher for nothing


def test_the_report_shows_both_tables_their_difference_and_the_frontier(tmp_path: Path) -> None:
    from sandbox.report.page import render_html, render_markdown

    four_games(tmp_path)
    summary = summarise_games(load_games([tmp_path]), samples=20)
    page = render_html(summary, "t")
    for ident in ("nash", "rule-failures", "ratings-without-failures", "frontier"):
        assert f'<table id="{ident}">' in page
    assert 'id="chart-frontier-cost"' in page and 'id="chart-frontier-tokens"' in page
    assert "1 of 4 rated games left out" in page
    markdown = render_markdown(summary, "t")
    change = summary["ratings_without_failures"]["change"]["X"]
    section = markdown.split("## Ratings without rule failures")[1].split("## ")[0]
    row = next(line for line in section.splitlines() if line.startswith("| X | "))
    assert f"{change['elo']:+.0f}" in row  # the Δ Elo column
    for heading in ("## Rule failures", "## Ratings without rule failures", "## Cost–rating"):
        assert heading in markdown
