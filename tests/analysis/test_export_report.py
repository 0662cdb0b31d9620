"""``sandbox export`` and ``sandbox report`` on a study folder and a plain batch
folder; the DataFrames; the report checked in a real headless Chromium."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.analysis import beliefs_df, calls_df, decisions_df, games_df, seats_df
from sandbox.cli.main import app
from tests.analysis.builders import (
    KILLER_EVENTS,
    KILLER_RESULTS,
    KILLER_ROLES,
    KILLER_WHO,
    write_transcript,
)
from tests.chromium import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.study.test_study_run import study_file


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("study")
    result = invoke("study", str(study_file(root, per_cell=1)), "--json")
    assert result.exit_code == 0, result.stderr
    return root / "out"


@pytest.fixture(scope="module")
def batch_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("batch")
    game = root / "k.toml"
    # killers on random seats, everyone else on the baseline bot: two "contestants"
    text = f'variant = "killer"\n[run]\nout = "{root / "out"}"\n'
    text += '[[agent]]\nkind = "random"\nrole = "killer"\n'
    game.write_text(text, encoding="utf-8")
    result = invoke("batch", str(game), "--games", "3", "--quiet")
    assert result.exit_code == 0, result.stderr
    return root / "out"


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_csv_export_of_a_study(study_folder: Path, tmp_path: Path) -> None:
    result = invoke("export", str(study_folder), "--out", str(tmp_path / "x"))
    assert result.exit_code == 0, result.stderr
    games = read_csv(tmp_path / "x" / "games.csv")
    seats = read_csv(tmp_path / "x" / "seats.csv")
    assert len(games) == 2 and {g["study"] for g in games} == {"s1"}
    assert len(seats) == 2 * 11
    assert {s["contestant"] for s in seats} == {"bot", "dice"}
    decisions = read_csv(tmp_path / "x" / "decisions.csv")
    assert sum(int(g["decisions"]) for g in games) == len(decisions)
    assert (tmp_path / "x" / "calls.csv").exists() and (tmp_path / "x" / "beliefs.csv").exists()


def test_parquet_export_of_a_batch_reads_back(batch_folder: Path, tmp_path: Path) -> None:
    import pandas as pd

    result = invoke("export", str(batch_folder), "--format", "parquet", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    seats = pd.read_parquet(tmp_path / "seats.parquet")
    assert len(seats) == 3 * 12 and set(seats["contestant"]) == {"baseline", "random"}
    assert seats["won"].dtype == bool


def test_dataframes_match_the_tables(batch_folder: Path) -> None:
    games = games_df([batch_folder])
    assert len(games) == 3 and set(games["variant"]) == {"killer"}
    assert len(seats_df([batch_folder])) == 36
    assert games["decisions"].sum() == len(decisions_df([batch_folder]))
    assert calls_df([batch_folder]).empty and beliefs_df([batch_folder]).empty


def test_beliefs_table_reads_labels_and_probabilities(tmp_path: Path) -> None:
    calls = [
        {"seat": 3, "request_id": "1.3.vote", "model": "m/P", "beliefs": {"1": "killer"}},
        {
            "seat": 4,
            "request_id": "1.4.vote",
            "model": "m/P",
            "beliefs": {"1": {"killer": 0.6, "police": 0.4}, "2": "unknown"},
        },
    ]
    write_transcript(
        tmp_path / "b.jsonl",
        "killer",
        KILLER_ROLES,
        KILLER_WHO,
        KILLER_EVENTS,
        KILLER_RESULTS,
        calls=calls,
    )
    frame = beliefs_df([tmp_path])
    rows = frame.to_dict("records")
    assert [(r["seat"], r["target"], r["said"]) for r in rows] == [
        (3, 1, "killer"),
        (4, 1, "killer"),
        (4, 2, "unknown"),
    ]
    assert frame["p_true"].iloc[:2].tolist() == [1.0, 0.6]
    assert frame["p_true"].isna().iloc[2]  # "unknown" has no probability


def test_export_bad_input_is_one_line(tmp_path: Path, batch_folder: Path) -> None:
    cases = [
        (["export", str(tmp_path / "nope")], "no such file"),
        (["export", str(tmp_path)], "no finished transcript"),
        (["export", str(batch_folder), "--format", "xlsx"], "allowed: csv, parquet"),
        (["report", str(tmp_path)], "no finished transcript"),
    ]
    for args, says in cases:
        result = invoke(*args)
        assert result.exit_code == 2, args
        assert result.stderr.startswith("error:") and says in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_stats_warns_when_it_pools_setups_and_splits_them(
    batch_folder: Path, study_folder: Path
) -> None:
    pooled = json.loads(invoke("stats", str(batch_folder), str(study_folder), "--json").stdout)
    killer = pooled["variants"]["killer"]
    assert killer["games"] == 5 and "2 different setups" in killer["pooling_warning"]
    assert set(killer["by_contestant"]) == {"baseline", "random", "bot", "dice"}
    text = invoke("stats", str(batch_folder), str(study_folder)).stdout
    assert "warning:" in text and "--by-setup" in text
    split = json.loads(
        invoke("stats", str(batch_folder), str(study_folder), "--json", "--by-setup").stdout
    )
    assert sorted(v["games"] for v in split["variants"].values()) == [2, 3]
    assert all(v["pooling_warning"] is None for v in split["variants"].values())


def test_a_zero_rate_never_gets_a_zero_width_interval(tmp_path: Path) -> None:
    # stats reads typed events: leave out the structured-claim keys older engines lack
    bare = [
        (kind, {k: v for k, v in data.items() if k not in ("claim", "accuse", "vouch")})
        for kind, data in KILLER_EVENTS
    ]
    for seed in (1, 2):
        write_transcript(
            tmp_path / f"g{seed}.jsonl",
            "killer",
            KILLER_ROLES,
            KILLER_WHO,
            bare,
            KILLER_RESULTS,
            seed=seed,
        )
    result = invoke("stats", str(tmp_path), "--json")
    assert result.exit_code == 0, result.stderr
    figures = json.loads(result.stdout)["variants"]["killer"]
    police_win = figures["roles"]["police"]["win"]
    assert police_win["rate"] == 0.0 and police_win["ci95"][1] > 0.5
    assert figures["by_contestant"]["P"]["police"]["ci95"][1] > 0.5


@pytest.mark.parametrize("which", ["study", "batch"])
def test_report_renders_in_headless_chromium(
    which: str, study_folder: Path, batch_folder: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    require_chromium()
    folder = study_folder if which == "study" else batch_folder
    out = tmp_path / "report.html"
    result = invoke("report", str(folder), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.with_suffix(".md").read_text().startswith("# ")
    board = read_csv(out.with_suffix(".leaderboard.csv"))
    requested: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: requested.append(r.url))
            page.goto(out.as_uri())
            rows = page.locator("#leaderboard tbody tr")
            names = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.id, i.complete && i.naturalWidth > 0])"
            )
            heading = page.locator("h1").inner_text()
            side_head = page.locator("#win-rates thead th").all_inner_texts()
        finally:
            browser.close()
    assert names == [row["contestant"] for row in board] and names
    expected = {"bot", "dice"} if which == "study" else {"baseline", "random"}
    assert set(names) == expected
    if which == "study":
        assert heading == "study s1"
        charts = {"chart-head-to-head", "chart-win-rates", "chart-cost", "chart-frontier-cost"}
        assert charts | {"chart-frontier-tokens"} <= {i for i, _ in images}
    assert images and all(ok for _, ok in images)  # every chart decoded and drawn
    assert {"killer", "police"} <= set(side_head)
    assert all(url.startswith(("file:", "data:")) for url in requested)  # self-contained
