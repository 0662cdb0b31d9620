"""Issue 39's first "done when": a study of two fake policies, one planted to lie
more (``fake/legal-random`` states random claims; ``fake/quiet`` states none),
shows the planted difference in the statements table and in the deceive rating
(its interval excluding the other's), and the validity report flags that the
study is too small to separate the contestants. Six 6-seat Werewolf games on
the fake provider: a few seconds."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sandbox.cli.main import app

GAME = """variant = "werewolf"
name = "ww6"
[rules]
players = 6
[llm]
language = "en"
max_repairs = 1
[run]
out = "out"
"""

STUDY = """name = "planted"
game = "game.toml"
schedule = "matrix"
games_per_cell = 3
seed = 7
jobs = 1
out = "out"

[[contestant]]
name = "liar"
kind = "llm"
model = "fake/legal-random"
timeout_s = 10

[[contestant]]
name = "quiet"
kind = "llm"
model = "fake/quiet"
timeout_s = 10
"""


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_a_planted_liar_shows_in_the_statements_the_deceive_rating_and_validity(
    tmp_path: Path,
) -> None:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    study = tmp_path / "planted.toml"
    study.write_text(STUDY, encoding="utf-8")
    found = json.loads(invoke("study", str(study), "--json").stdout)
    assert found["finished"] == 6

    # the statements table: the liar's lies, none from the quiet policy
    invoke("export", str(tmp_path / "out"), "--out", str(tmp_path / "csv"))
    with (tmp_path / "csv" / "statements.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    lies = Counter(r["contestant"] for r in rows if r["label"] == "lie")
    assert lies["liar"] >= 10 and lies["quiet"] == 0
    assert found["lies"]["by_contestant"]["liar"]["value"] > 0
    assert "quiet" not in found["lies"]["by_contestant"]  # no claim to decide

    # the deceive rating: the liar's interval lies wholly above the quiet one's
    deceive = {n: e["deceive"] for n, e in found["deception"]["by_contestant"].items()}
    assert deceive["liar"]["duels"] > 0 and deceive["quiet"]["duels"] > 0
    lie_won = {n: d["won_by_kind"]["lie"]["value"] for n, d in deceive.items()}
    assert lie_won["quiet"] == 0.0 < lie_won["liar"]  # nothing to believe from the quiet one
    assert deceive["quiet"]["won"]["value"] < deceive["liar"]["won"]["value"]
    assert deceive["liar"]["elo_ci95"][0] > deceive["quiet"]["elo_ci95"][1]

    # validity: six games cannot separate the two on the win rating
    separation = found["validity"]["separation"]
    assert separation["separated"] == 0 and separation["total"] == 1
    assert separation["warning"].startswith("the study is too small")

    # the printed study (every game already played) shows both
    printed = invoke("study", str(study)).stdout
    assert "warning: the study is too small" in printed
    assert "deceive and detect" in printed and "liar" in printed


def test_the_quiet_policy_states_no_claim() -> None:
    import random

    from sandbox.models.fake.answers import quiet_answer

    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "claim": {"enum": ["none", "seer", "villager"]},
            "accuse": {"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3},
            "vouch": {"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3},
        },
    }
    for seed in range(20):
        answer = json.loads(quiet_answer(schema, random.Random(seed)))
        assert (answer["claim"], answer["accuse"], answer["vouch"]) == ("none", [], [])
        assert answer["text"]
    ballot = {"type": "object", "properties": {"target": {"enum": [1, 2]}}}
    assert json.loads(quiet_answer(ballot, random.Random(1)))["target"] in (1, 2)
