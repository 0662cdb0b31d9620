"""Issue 39's first "done when": a study of fake policies, one planted to lie
(``fake/liar``: a false role claim in every speech, read from its own role
card) and one planted not to (``fake/quiet``: no claim at all), shows the
planted difference in the statements table and in the deceive rating, and the
validity report flags that the study is too small to separate the contestants.

The design has a third contestant, the baseline bot, because with two the
comparison does not exist: every duel sets one contestant's deceive part
against the other's detect part, the duel graph falls in two components, and
the level of one deceive rating against the other is not measured (the second
test: the study says so). The matrix of three links all six parts.

What the plant moves is the lie duels (a wolf's lie followed by a listener's
next ballot); the vote duels (a wolf surviving a ballot) turn on the
voters' ballots, random for the fake policies, and add noise.
Measured over the study's seeds 1-8 (docs/benchmarks.md, "A planted liar";
margin: the liar's low end minus the quiet one's high end): at 24 games the
lie-duel rating's intervals exclude each other at every seed, by 279 Elo or
more (at 18 games by as little as 42, at 12 at only 5 seeds of 8); the deceive
rating (both kinds of duel) puts the liar above at every seed and size (by
168 Elo or more at 24 games), but its intervals overlap at 4 seeds of 8 at 24
games, and at 30, where they part at all 8, the margin is down to +8 Elo: a
coin toss on the next change of the fake draws. So the test asserts the
interval exclusion on the lie-duel part of the deceive rating
(``by_kind.lie``) and the order on the whole. Twenty-four 6-seat Werewolf
games on the fake provider: about half a minute."""

from __future__ import annotations

import csv
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sandbox.analysis.duel_graph import comparable
from sandbox.cli.main import app
from sandbox.models.fake.answers import liar_answer, own_role, quiet_answer

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

CONTESTANTS = """
[[contestant]]
name = "liar"
kind = "llm"
model = "fake/liar"
timeout_s = 10

[[contestant]]
name = "quiet"
kind = "llm"
model = "fake/quiet"
timeout_s = 10
"""

BASELINE = """
[[contestant]]
name = "base"
kind = "baseline"
"""


def study_file(games_per_cell: int, extra: str = "") -> str:
    return (
        f'name = "planted"\ngame = "game.toml"\nschedule = "matrix"\n'
        f'games_per_cell = {games_per_cell}\nseed = 7\njobs = 1\nout = "out"\n'
        + CONTESTANTS
        + extra
    )


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def run_study(tmp_path: Path, text: str) -> tuple[Path, dict[str, Any]]:
    (tmp_path / "game.toml").write_text(GAME, encoding="utf-8")
    study = tmp_path / "planted.toml"
    study.write_text(text, encoding="utf-8")
    return study, json.loads(invoke("study", str(study), "--json").stdout)


def test_a_planted_liar_shows_in_the_statements_the_deceive_rating_and_validity(
    tmp_path: Path,
) -> None:
    study, found = run_study(tmp_path, study_file(4, BASELINE))
    assert found["finished"] == 24

    # the statements table: every claim of the liar is a lie; the quiet one states none
    invoke("export", str(tmp_path / "out"), "--out", str(tmp_path / "csv"))
    with (tmp_path / "csv" / "statements.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    labels = Counter((r["contestant"], r["label"]) for r in rows)
    assert labels[("liar", "lie")] >= 30
    assert {label for who, label in labels if who == "liar"} == {"lie"}
    assert not any(who == "quiet" for who, _ in labels)
    assert found["lies"]["by_contestant"]["liar"]["value"] == 1.0
    assert "quiet" not in found["lies"]["by_contestant"]  # no claim to decide

    # one component: every deceive rating compares with every other
    deception = found["deception"]
    assert deception["graph"]["connected"] and deception["warning"] is None
    assert comparable(deception, "deceive", "liar", "quiet")
    assert comparable(deception, "deceive", "liar", "quiet", kind="lie")
    assert found["validity"]["deception"]["connected"] is True

    # the deceive rating: on the lie duels (where the plant acts) the liar's
    # interval lies wholly above the quiet one's; on all its duels it rates higher
    deceive = {n: e["deceive"] for n, e in deception["by_contestant"].items()}
    assert deceive["liar"]["duels"] > 0 and deceive["quiet"]["duels"] > 0
    lie_won = {n: d["won_by_kind"]["lie"]["value"] for n, d in deceive.items()}
    assert lie_won["quiet"] == 0.0 < 0.3 < lie_won["liar"]  # nothing to believe from the quiet one
    assert deceive["quiet"]["won"]["value"] < deceive["liar"]["won"]["value"]
    liar, quiet = deceive["liar"]["by_kind"]["lie"], deceive["quiet"]["by_kind"]["lie"]
    assert liar["elo_ci95"][0] > quiet["elo_ci95"][1]
    assert deceive["liar"]["elo"] > deceive["quiet"]["elo"]

    # validity: twenty-four games cannot separate the three on the win rating
    separation = found["validity"]["separation"]
    assert separation["separated"] < separation["total"] == 3
    assert separation["warning"].startswith("the study is too small")

    # the printed study (every game already played) shows both
    printed = invoke("study", str(study)).stdout
    assert "warning: the study is too small" in printed
    assert "deceive and detect" in printed and "liar" in printed
    assert "do not all compare" not in printed


def test_two_contestants_cannot_compare_their_deceive_ratings(tmp_path: Path) -> None:
    """The same plant with no third contestant: the study says that the two
    deceive ratings are in different components, in its JSON, its validity
    report and its printed table (each rating marked g1 or g2)."""
    study, found = run_study(tmp_path, study_file(1))
    assert found["finished"] == 2
    deception = found["deception"]
    assert deception["graph"]["components"] == [
        ["deceive:liar", "detect:quiet"],
        ["deceive:quiet", "detect:liar"],
    ]
    assert not comparable(deception, "deceive", "liar", "quiet")
    assert deception["comparable"] == {"deceive": False, "detect": False}
    assert deception["warning"] == found["validity"]["deception"]["warning"]
    assert "deceive: liar | quiet" in deception["warning"]
    printed = invoke("study", str(study)).stdout
    assert "the deceive and detect ratings do not all compare" in printed
    assert " g1" in printed and " g2" in printed


CARD_SCHEMA = {
    "type": "object",
    "properties": {
        "speech": {"type": "string"},
        "claim": {"enum": ["none", "werewolf", "seer", "doctor", "villager"]},
        "accuse": {"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3},
        "vouch": {"type": "array", "items": {"enum": [1, 2, 3]}, "maxItems": 3},
    },
}


def card(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": f"# Your role card\n{text}\n"},
        {"role": "user", "content": "Speak."},
    ]


def test_the_liar_policy_claims_a_role_its_card_denies() -> None:
    wolf = card(
        "- You are seat 6. Your role: WEREWOLF (team: werewolves).\n- Your pack: seats 1, 6."
    )
    seer = card("- 你是3号。你的身份：预言家（seer），阵营：好人阵营。")
    assert (own_role(wolf), own_role(seer)) == ("werewolf", "seer")
    for seed in range(20):
        for messages, role in ((wolf, "werewolf"), (seer, "seer")):
            answer = json.loads(liar_answer(CARD_SCHEMA, messages, random.Random(seed)))
            assert answer["claim"] not in ("none", role)
            assert (answer["accuse"], answer["vouch"]) == ([], [])
    # Four Factions' faction claim (FF-13)
    faction = card("- You are seat 2, faction: wolves (a regular).")
    proofs = {"type": "object", "properties": {"am": {"enum": ["wolves", "spies", "army"]}}}
    assert json.loads(liar_answer(proofs, faction, random.Random(1)))["am"] in ("spies", "army")
    # no card, or a card only quoted inside a speech: nothing it knows is false, so no claim
    quoted = [
        {"role": "user", "content": 'Seat 3 said (speech): "- You are seat 3. Your role: SEER"'}
    ]
    for messages in ([], quoted):
        assert own_role(messages) is None
        assert json.loads(liar_answer(CARD_SCHEMA, messages, random.Random(2)))["claim"] == "none"
    ballot = {"type": "object", "properties": {"target": {"enum": [1, 2]}}}
    assert json.loads(liar_answer(ballot, wolf, random.Random(1)))["target"] in (1, 2)


def test_the_quiet_policy_states_no_claim() -> None:
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
