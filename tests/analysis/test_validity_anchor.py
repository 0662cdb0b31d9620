"""The validity report's frozen-reference anchor (issue 39, item 3): when a
reference bot (frozen tag ``<variant>/level-<n>/v1`` in the header's agents) is
a contestant, the Elo scale is pinned to it. Hand-built Killer games."""

from __future__ import annotations

import json
import math
from pathlib import Path

from sandbox.analysis.load import load_games
from sandbox.analysis.summary import summarise_games
from sandbox.analysis.validity import ANCHOR_ELO, anchor, references
from sandbox.deduction.mind import frozen_tag
from sandbox.games.killer.bot import LADDER
from sandbox.report.page import render_html, render_markdown
from sandbox.transcript import read_game
from tests.analysis.builders import KILLER_EVENTS, KILLER_ROLES, write_transcript

TAG = frozen_tag("killer", 3, LADDER[3].version)  # "killer/level-3/v4"


def game(path: Path, killers: str, police: str, won: str, tags: dict[str, str]) -> Path:
    """``killers`` holds seats 1-2, ``police`` the rest; ``tags``: contestant ->
    the frozen tag its seats carry (a deducing bot's description)."""
    who = {s: (killers if r == "killer" else police) for s, r in KILLER_ROLES.items()}
    results = {
        s: ("win" if (r == "killer") == (won == "killer") else "lose")
        for s, r in KILLER_ROLES.items()
    }
    write_transcript(path, "killer", KILLER_ROLES, who, KILLER_EVENTS[:2], results)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for seat, name in who.items():
        if name in tags:
            lines[0]["agents"][str(seat)] = {
                "kind": "baseline",
                "level": 3,
                "reference": tags[name],
            }
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_the_reference_is_fixed_and_the_other_is_its_distance(tmp_path: Path) -> None:
    """A beats the reference in 3 of 4 games: Bradley–Terry with its half-win
    prior each way gives A 3.5 wins to 1.5, an Elo gap of 400·log10(3.5/1.5)."""
    paths = [
        game(tmp_path / f"g{i}.jsonl", "A", "ref", won, {"ref": TAG})
        for i, won in enumerate(["killer", "killer", "killer", "police"])
    ]
    games = [read_game(p) for p in paths]
    assert references(games) == {"ref": TAG}
    found = anchor(games, samples=50)
    assert found is not None
    assert (found["reference"], found["tag"], found["elo"]) == ("ref", TAG, ANCHOR_ELO)
    ref, a = found["ratings"]["ref"], found["ratings"]["A"]
    assert ref == {"elo": 1500.0, "elo_ci95": None}  # fixed: no interval
    assert a["elo"] == round(1500 + 400 * math.log10(3.5 / 1.5), 1) == 1647.2
    low, high = a["elo_ci95"]
    assert low <= a["elo"] <= high
    assert TAG == "killer/level-3/v4"
    assert f"anchored to the frozen reference ref ({TAG}), fixed at 1500" in found["note"]


def test_no_reference_no_anchor_and_a_mixed_contestant_is_none(tmp_path: Path) -> None:
    plain = [game(tmp_path / "p.jsonl", "A", "B", "killer", {})]
    assert anchor([read_game(p) for p in plain]) is None
    # B carries the tag in one game only: not a frozen reference
    mixed = [*plain, game(tmp_path / "m.jsonl", "A", "B", "police", {"B": TAG})]
    assert references([read_game(p) for p in mixed]) == {}


def test_of_two_references_the_one_with_more_games_anchors(tmp_path: Path) -> None:
    other = frozen_tag("killer", 1)
    tags = {"ref": TAG, "low": other}
    paths = [
        game(tmp_path / "a.jsonl", "A", "ref", "killer", tags),
        game(tmp_path / "b.jsonl", "ref", "low", "killer", tags),
        game(tmp_path / "c.jsonl", "A", "ref", "police", tags),
    ]
    found = anchor([read_game(p) for p in paths], samples=20)
    assert found is not None and found["reference"] == "ref"
    assert found["references"] == {"low": other, "ref": TAG}


def test_the_anchor_joins_the_validity_report_and_the_page(tmp_path: Path) -> None:
    for i, won in enumerate(["killer", "killer", "killer", "police"]):
        game(tmp_path / f"g{i}.jsonl", "A", "ref", won, {"ref": TAG})
    summary = summarise_games(load_games([tmp_path]), samples=20)
    found = summary["validity"]["anchor"]
    assert found["ratings"]["A"]["elo"] == 1647.2
    html = render_html(summary, "anchored")
    assert 'id="anchor-note"' in html and "fixed at 1500" in html
    assert "| ref | 1500.0 | fixed |" in render_markdown(summary, "anchored")
