"""Deceive and detect: which ratings compare (issue 39, item 2). A chain of
duels must link two parts for the fit to measure one against the other; with
two contestants it never does (each duel sets one's deceive part against the
other's detect part), and the summary, the printed table and the validity
report say so. Hand-built Killer games (tests/analysis/test_statements.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from sandbox.analysis import deception
from sandbox.analysis.deception import Duels, _fit, deception_rows, deception_summary
from sandbox.analysis.duel_graph import comparable, components, deception_validity
from sandbox.analysis.load import load_games
from sandbox.analysis.ratings import bradley_terry
from sandbox.analysis.summary import summarise_games
from tests.analysis.test_statements import K_EVENTS, K_ROLES, write

# seats 1, 2 killers; 3, 4 police; 5, 6 civilians (the hidden side: the killers)
KILLERS, REST = (1, 2), (3, 4, 5, 6)


def cast(hidden: str, rest: str) -> dict[int, str]:
    return {**dict.fromkeys(KILLERS, hidden), **dict.fromkeys(REST, rest)}


def games_of(tmp_path: Path, line_ups: list[tuple[str, str]]) -> Any:
    folder = tmp_path / "g"
    folder.mkdir()
    for i, (hidden, rest) in enumerate(line_ups):
        write(folder / f"{i}.jsonl", "killer", K_ROLES, K_EVENTS, contestants=cast(hidden, rest))
    return load_games([folder])


def test_two_contestants_make_two_components_and_no_comparison(tmp_path: Path) -> None:
    loaded = games_of(tmp_path, [("liar", "quiet"), ("quiet", "liar")])
    found = deception_summary(loaded.games, samples=40)
    assert found is not None
    graph = found["graph"]
    assert graph["components"] == [
        ["deceive:liar", "detect:quiet"],
        ["deceive:quiet", "detect:liar"],
    ]
    assert graph["connected"] is False and graph["split_resamples"] == 0
    assert found["comparable"] == {"deceive": False, "detect": False}
    assert not comparable(found, "deceive", "liar", "quiet")
    assert not comparable(found, "detect", "liar", "quiet")
    assert comparable(found, "deceive", "liar", "liar")  # a part compares with itself
    assert "deceive and detect ratings do not all compare" in found["warning"]
    assert "deceive: liar | quiet" in found["warning"]
    by = found["by_contestant"]
    assert (by["liar"]["deceive"]["component"], by["quiet"]["deceive"]["component"]) == (0, 1)
    # each component is fitted apart, its mean at 1500: the same game on both
    # sides gives the same ratings, and nothing says which deceive part is better
    assert by["liar"]["deceive"]["elo"] == by["quiet"]["deceive"]["elo"]
    assert by["liar"]["deceive"]["elo"] + by["quiet"]["detect"]["elo"] == pytest.approx(3000)
    # no rank correlation across components
    assert found["rank_correlation"]["spearman"] is None
    # the printed table marks each rating with its component
    rows = deception_rows({"deception": found})
    assert rows[0][0] == "liar" and rows[0][1].endswith(" g1") and rows[0][2].endswith(" g2")
    assert rows[1][1].endswith(" g2") and rows[1][2].endswith(" g1")
    # the validity report carries it
    summary = summarise_games(loaded, samples=40)
    assert summary["validity"]["deception"] == {
        "connected": False,
        "components": 2,
        "comparable": {"deceive": False, "detect": False},
        "split_resamples": 0,
        "split_kept": 0,
        "warning": found["warning"],
    }


MATRIX = [(a, b) for a in ("liar", "quiet", "base") for b in ("liar", "quiet", "base") if a != b]


def test_a_third_contestant_links_the_deceive_ratings(tmp_path: Path) -> None:
    """A baseline meeting both (each deceives against its detection and is
    detected by it) links the liar's and the quiet one's deceive parts through
    its detect part. Without the liar-quiet line-ups, its own deceive part
    stays apart (it meets only their detect parts, which meet nothing else)."""
    line_ups = [("liar", "base"), ("quiet", "base"), ("base", "liar"), ("base", "quiet")]
    found = deception_summary(games_of(tmp_path, line_ups).games, samples=40)
    assert found is not None
    assert found["graph"]["components"] == [
        ["deceive:base", "detect:liar", "detect:quiet"],
        ["deceive:liar", "deceive:quiet", "detect:base"],
    ]
    assert comparable(found, "deceive", "liar", "quiet")
    assert not comparable(found, "deceive", "liar", "base")
    assert found["comparable"] == {"deceive": False, "detect": False}
    assert "deceive: base | liar, quiet" in found["warning"]


def test_the_matrix_of_three_contestants_is_one_component(tmp_path: Path) -> None:
    """Every ordered pair of three contestants (the study's matrix schedule):
    one component, so every rating compares. The six games, one per line-up,
    make a cycle of six parts, and a resample of them that leaves out two
    line-ups may split it: such a resample is drawn again (counted), never
    fitted, as the levels of its pieces would not be measured."""
    loaded = games_of(tmp_path, MATRIX)
    found = deception_summary(loaded.games, samples=60)
    assert found is not None
    graph = found["graph"]
    assert graph["components"] == [
        ["deceive:base", "deceive:liar", "deceive:quiet", "detect:base", "detect:liar",
         "detect:quiet"],
    ]  # fmt: skip
    assert graph["connected"] is True and graph["resamples"] == 60
    assert graph["split_resamples"] > 0 and graph["split_kept"] == 0
    assert found["comparable"] == {"deceive": True, "detect": True} and found["warning"] is None
    assert comparable(found, "deceive", "liar", "quiet")
    rows = deception_rows({"deception": found})
    assert not any(cell.endswith((" g1", " g2")) for row in rows for cell in row)
    validity = deception_validity(found)
    assert validity is not None and validity["warning"] is None
    assert validity["split_resamples"] == graph["split_resamples"]
    assert deception_validity(None) is None
    assert found["rank_correlation"]["contestants"] == 3


def test_the_redraws_run_out_on_a_graph_few_resamples_keep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three games in a chain (deceive liar - detect quiet - deceive base -
    detect liar): a resample holding the two ends without the middle game
    splits it, and is drawn again (a resample that leaves a part out
    altogether splits nothing). Past REDRAWS times the resamples asked for
    (here none allowed), split ones are kept and counted."""
    loaded = games_of(tmp_path, [("liar", "quiet"), ("base", "quiet"), ("base", "liar")])
    found = deception_summary(loaded.games, samples=40)
    assert found is not None and found["graph"]["connected"] is True
    assert 0 < found["graph"]["split_resamples"] < 40 and found["graph"]["split_kept"] == 0
    monkeypatch.setattr(deception, "REDRAWS", 0)
    found = deception_summary(loaded.games, samples=40)
    assert found is not None
    assert found["graph"]["split_resamples"] == 0 and 0 < found["graph"]["split_kept"] < 25


def test_components_and_a_fit_per_component() -> None:
    wins = {("A", "B"): 10.0, ("B", "A"): 1.0, ("C", "D"): 1.0, ("D", "C"): 1.0}
    assert components(wins) == [["A", "B"], ["C", "D"]]
    assert components({**wins, ("B", "C"): 1.0}) == [["A", "B", "C", "D"]]
    # one fit over both components leaves C and D off 1500 although they tie:
    # the level of one component against the other is the iteration's, not the data's
    together = bradley_terry(wins)
    assert together["C"] == pytest.approx(together["D"]) and together["C"] != pytest.approx(1500)
    game = Duels("g")
    for _ in range(10):
        game.add("lie", "a", "b", True)
    game.add("lie", "a", "b", False)
    game.add("lie", "c", "d", True)
    game.add("lie", "c", "d", False)
    fit = _fit([game])
    assert fit["deceive:c"] == pytest.approx(1500) and fit["detect:d"] == pytest.approx(1500)
    assert fit["deceive:a"] + fit["detect:b"] == pytest.approx(3000)
    # 10 + 0.5 wins to 1 + 0.5 (the prior): odds of 7, 400·log10(7) apart around 1500
    assert fit["deceive:a"] == pytest.approx(1500 + 200 * math.log10(7))
