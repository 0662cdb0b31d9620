"""Engine-verified statements: every label forced by a hand-built transcript in
every variant, the listeners' columns, the exported table (also when empty),
and one seeded bot game per variant checked against an independent count."""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.analysis.statements import COLUMNS, LABELS, statement_rows
from sandbox.cli.main import app
from sandbox.transcript import read_game
from tests.analysis.builders import FF_ROLES

Line = tuple[str, dict[str, Any], Any]  # kind, data, visibility ("public" or seats)


def write(
    path: Path,
    variant: str,
    roles: Mapping[int, str],
    events: Sequence[Line],
    calls: Sequence[dict[str, Any]] = (),
    contestants: Mapping[int, str] | None = None,
) -> Any:
    """A transcript with each event's own visibility (builders.write_transcript
    makes every event public, and a view is read from visibility here)."""
    header = {
        "type": "header",
        "schema": 1,
        "variant": variant,
        "seed": 1,
        "name": "hand",
        "config": {"variant": variant, "name": "hand"},
        "roles": {str(s): r for s, r in roles.items()},
        "agents": {str(s): {"kind": "llm", "model": "m/x"} for s in roles},
        "started": "2026-01-01T00:00:00Z",
    }
    if contestants is not None:
        header["contestants"] = {str(s): c for s, c in contestants.items()}
    lines: list[dict[str, Any]] = [header]
    for seq, (kind, data, vis) in enumerate(events):
        lines.append({"type": "event", "seq": seq, "kind": kind, "vis": vis, "data": data})
    lines.extend({"type": "call", **c} for c in calls)
    lines.append({"type": "outcome", "reason": "hand", "results": {str(s): "draw" for s in roles}})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return read_game(path)


def labels(rows: Sequence[dict[str, Any]]) -> dict[tuple[int, str, str, str], str]:
    """(seq, claim_type, claim, source) -> label."""
    return {(r["seq"], r["claim_type"], r["claim"], r["source"]): r["label"] for r in rows}


def ww_speech(seat: int, text: str = "", **fields: Any) -> Line:
    data = {"day": 1, "seat": seat, "turn": 1, "text": text, "shown": text, **fields}
    return ("werewolf.speech", data, "public")


WW_ROLES = {1: "werewolf", 2: "werewolf", 3: "seer", 4: "doctor", 5: "villager", 6: "villager"}
WW_EVENTS: list[Line] = [
    ("werewolf.role", {"seat": 1, "role": "werewolf"}, [1]),  # 0
    ("werewolf.pack", {"role": "werewolf", "members": [1, 2]}, [1, 2]),  # 1
    ("werewolf.seer_result", {"night": 1, "seer": 3, "seat": 6, "result": "villager"}, [3]),  # 2
    ("werewolf.dawn", {"day": 1, "victim": 4, "revealed": None}, "public"),  # 3
    # 4: a werewolf claims the seer, accuses a villager and vouches for its partner
    ww_speech(1, "I will vote seat 5.", claim="seer", accuse=[5], vouch=[2]),
    # 5: the seer: its own check, a check it never made, and a true accusation
    ww_speech(3, "I checked seat 6, villager. I checked seat 5, wolf. Seat 2 is a wolf."),
    # 6: a villager guesses wrong twice and breaks its promise
    ww_speech(5, "I will vote seat 2.", accuse=[6], vouch=[1]),
    # 7: a promise for a dead seat (no ballot could name it)
    ww_speech(6, "I will vote seat 4."),
    # 8: pack chat, heard by the other werewolf alone
    ("werewolf.wolf_message", {"night": 2, "seat": 1, "text": "Seat 3 is the seer."}, [1, 2]),
    ("werewolf.vote_opened", {"day": 1, "mode": "sealed", "order": [1, 2, 3, 5, 6],
                              "candidates": [1, 2, 3, 5, 6]}, "public"),  # 9
    ("werewolf.ballots", {"day": 1, "ballots": {"1": 5, "2": 5, "3": 2, "5": 1, "6": 2}},
     "public"),  # 10
]  # fmt: skip


def test_every_label_in_werewolf(tmp_path: Path) -> None:
    rows = statement_rows(write(tmp_path / "w.jsonl", "werewolf", WW_ROLES, WW_EVENTS))
    assert labels(rows) == {
        (4, "role", "seer", "fields"): "lie",  # a werewolf knows its card
        (4, "accuse", "5", "fields"): "lie",  # the pack list shows 5 is not a wolf
        (4, "vouch", "2", "fields"): "lie",  # its partner
        (4, "promise", "5", "words"): "true",  # it voted 5
        (5, "check", "6 villager", "words"): "true",
        (5, "check", "5 werewolf", "words"): "lie",  # it never checked 5
        (5, "accuse", "2", "words"): "true",
        (6, "accuse", "6", "fields"): "error",  # a villager cannot know
        (6, "vouch", "1", "fields"): "error",
        (6, "promise", "2", "words"): "lie",  # 2 was on the ballot; it voted 1
        (7, "promise", "4", "words"): "unknowable",  # seat 4 was dead, not a candidate
        (8, "vouch", "3", "words"): "true",
    }
    by_seq = {r["seq"]: r for r in rows}
    assert json.loads(by_seq[8]["heard_by"]) == [2]  # the pack's chat
    assert json.loads(by_seq[4]["heard_by"]) == [2, 3, 5, 6]  # the dead doctor hears nothing
    assert json.loads(by_seq[4]["next_ballots"]) == {"2": 5, "3": 2, "5": 1, "6": 2}
    first = next(r for r in rows if r["seq"] == 4 and r["claim_type"] == "accuse")
    assert (first["voted"], first["followed"]) == (4, 1)  # seat 2 voted 5
    vouch = next(r for r in rows if r["seq"] == 4 and r["claim_type"] == "vouch")
    assert vouch["followed"] == 2  # seats 2 and 5 voted off seat 2; 3 and 6 voted for it
    assert {r["role"] for r in rows if r["seat"] == 1} == {"werewolf"}
    assert {r["side"] for r in rows if r["seat"] == 1} == {"werewolves"}


def k_speech(seat: int, text: str = "", **fields: Any) -> Line:
    return ("killer.speech", {"day": 1, "seat": seat, "text": text, "context": "day", **fields},
            "public")  # fmt: skip


K_ROLES = {1: "killer", 2: "killer", 3: "police", 4: "police", 5: "civilian", 6: "civilian"}
K_EVENTS: list[Line] = [
    ("killer.team", {"role": "killer", "members": [1, 2]}, [1, 2]),  # 0
    ("killer.team", {"role": "police", "members": [3, 4]}, [3, 4]),  # 1
    ("killer.check", {"night": 1, "suspect": 5, "answer": "not killer", "tie_break": False,
                      "audience": [3, 4]}, [3, 4]),  # 2
    ("killer.dawn", {"day": 1, "victim": 6, "role": None}, "public"),  # 3
    # 4: police reports the team's check (KG-4: both police saw it)
    k_speech(4, "I checked seat 5: not a killer.", claim="police"),
    # 5: a killer passes as a civilian and clears its partner
    k_speech(1, claim="civilian", vouch=[2], accuse=[3]),
    # 6: a civilian right once, wrong once, keeping its promise
    k_speech(5, "I will vote seat 1.", accuse=[1, 4]),
    # 7: a killer's broken promise; 8: a promise with no ballot that day
    k_speech(2, "I will vote seat 4."),
    k_speech(3, "I will vote seat 1."),
    ("killer.phase", {"day": 1, "phase": "vote", "context": "vote", "round": 0,
                      "order": [], "candidates": [1, 2, 3, 4, 5]}, "public"),  # 9
    ("killer.ballots", {"day": 1, "round": 0, "ballots": {"1": 3, "2": 5, "4": 1, "5": 1},
                        "tally": {}}, "public"),  # 10
]  # fmt: skip


def test_every_label_in_killer(tmp_path: Path) -> None:
    rows = statement_rows(write(tmp_path / "k.jsonl", "killer", K_ROLES, K_EVENTS))
    assert labels(rows) == {
        (4, "role", "police", "fields"): "true",
        (4, "check", "5 good", "words"): "true",
        (5, "role", "civilian", "fields"): "lie",
        (5, "vouch", "2", "fields"): "lie",
        (5, "accuse", "3", "fields"): "lie",  # the killers know who is not a killer
        (6, "accuse", "1", "fields"): "true",
        (6, "accuse", "4", "fields"): "error",
        (6, "promise", "1", "words"): "true",
        (7, "promise", "4", "words"): "lie",  # it voted 5 with seat 4 on the ballot
        (8, "promise", "1", "words"): "unknowable",  # seat 3 cast no ballot that day
    }


def test_a_check_answer_that_leaves_the_role_open_is_an_error(tmp_path: Path) -> None:
    # KG-4 "not killer": the police cannot tell a civilian from a police seat it
    # does not know (here: no team list), so "civilian" for a police seat is an error
    events: list[Line] = [
        K_EVENTS[2],
        k_speech(3, "I checked seat 5, a civilian."),
        k_speech(4, "I checked seat 5, a killer."),
    ]
    roles = {**K_ROLES, 5: "police", 4: "civilian", 3: "police"}
    rows = statement_rows(write(tmp_path / "k.jsonl", "killer", roles, events))
    assert labels(rows) == {
        (1, "check", "5 civilian", "words"): "error",
        (2, "check", "5 killer", "words"): "lie",  # seat 4 is no police: it checked nothing
    }
    assert rows[0]["view"] == "open"


def ff(kind: str, seat: int, **data: Any) -> Line:
    return (kind, {"seat": seat, "speech": "", **data}, "public")


FF_EVENTS: list[Line] = [
    ("ff.role", {"seat": 1, "faction": "wolves", "elite": True, "weapon": None, "shield": None,
                 "max_hp": 5}, [1]),  # 0
    ("ff.elite_knowledge", {"seat": 1, "regulars": {"2": "wolves", "4": "spies"}}, [1]),  # 1
    ("ff.role", {"seat": 2, "faction": "wolves", "elite": False, "weapon": "rock",
                 "shield": None, "max_hp": 5}, [2]),  # 2
    ("ff.elite_known", {"seat": 2, "elite_seat": 1}, [2]),  # 3
    ("ff.phase", {"day": 1, "phase": "day", "stage": "proofs"}, "public"),  # 4
    ff("ff.proofs", 1, am="justice"),  # 5: lie
    ff("ff.proofs", 3, am="spies"),  # 6: true
    ff("ff.proofs", 5, am="justice"),  # 7: true
    ("ff.phase", {"day": 2, "phase": "day", "stage": "accusation"}, "public"),  # 8
    ff("ff.accusation", 1, target=2, faction="spies"),  # 9: lie (FF-9 knowledge)
    ff("ff.accusation", 5, target=6, faction="wolves"),  # 10: error
    ff("ff.accusation", 6, target=1, faction="wolves"),  # 11: true
    ("ff.phase", {"day": 3, "phase": "day", "stage": "protection"}, "public"),  # 12
    ff("ff.protection", 2, target=1),  # 13: lie (FF-10: its elite, not justice)
    ff("ff.protection", 4, target=3),  # 14: true
    ff("ff.protection", 6, target=4),  # 15: unknowable (4 made no day-1 claim)
    ("ff.phase", {"day": 4, "phase": "day", "stage": "open"}, "public"),  # 16
    ("ff.speech", {"seat": 5, "speech": "Seat 3 is spies."}, "public"),  # 17: true
]  # fmt: skip


def test_every_label_in_four_factions(tmp_path: Path) -> None:
    rows = statement_rows(write(tmp_path / "f.jsonl", "four_factions", FF_ROLES, FF_EVENTS))
    assert labels(rows) == {
        (5, "role", "justice", "fields"): "lie",
        (6, "role", "spies", "fields"): "true",
        (7, "role", "justice", "fields"): "true",
        (9, "accuse", "2", "fields"): "lie",
        (10, "accuse", "6", "fields"): "error",
        (11, "accuse", "1", "fields"): "true",
        (13, "vouch", "1", "fields"): "lie",
        (14, "vouch", "3", "fields"): "true",
        (15, "vouch", "4", "fields"): "unknowable",
        (17, "accuse", "3", "words"): "true",
    }
    assert {r["day"] for r in rows if r["seq"] >= 13} == {3, 4}
    assert all(r["followed"] is None for r in rows)  # no ballots, no hidden side


def test_belief_shift_of_the_listeners_probed_around_a_claim(tmp_path: Path) -> None:
    events = [k_speech(4, accuse=[1]), k_speech(3)]
    calls = [
        {"seat": 5, "model": "m", "probe": True, "seq": 0,
         "beliefs": {"1": {"killer": 0.2, "civilian": 0.8}}},
        {"seat": 5, "model": "m", "probe": True, "seq": 1,
         "beliefs": {"1": {"killer": 0.7, "civilian": 0.3}}},
        {"seat": 6, "model": "m", "probe": True, "seq": 0, "beliefs": {"1": "civilian"}},
        {"seat": 6, "model": "m", "probe": True, "seq": 1, "beliefs": {"1": "killer"}},
    ]  # fmt: skip
    rows = statement_rows(write(tmp_path / "k.jsonl", "killer", K_ROLES, events, calls))
    (row,) = rows
    assert row["belief_listeners"] == 2
    assert row["belief_shift"] == pytest.approx((0.5 + 1.0) / 2)


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_statements_export_keeps_its_columns_when_empty(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    (tmp_path / "g").mkdir()
    write(tmp_path / "g" / "k.jsonl", "killer", K_ROLES, [K_EVENTS[3]])  # no statement
    run("export", str(tmp_path / "g"), "--out", str(tmp_path / "csv"))
    with (tmp_path / "csv" / "statements.csv").open(encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == list(COLUMNS)
    run("export", str(tmp_path / "g"), "--out", str(tmp_path / "pq"), "--format", "parquet")
    frame = pd.read_parquet(tmp_path / "pq" / "statements.parquet")
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 0
    assert str(frame["seq"].dtype) == "Int64" and str(frame["belief_shift"].dtype) == "Float64"


def test_statements_export_rows(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    write(tmp_path / "g" / "k.jsonl", "killer", K_ROLES, K_EVENTS)
    run("export", str(tmp_path / "g"), "--out", str(tmp_path / "csv"))
    with (tmp_path / "csv" / "statements.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert Counter(r["label"] for r in rows) == {"true": 4, "lie": 4, "error": 1, "unknowable": 1}


def test_lie_rate_per_contestant_with_a_cluster_interval(tmp_path: Path) -> None:
    from sandbox.analysis.lies import lie_summary
    from sandbox.analysis.load import load_games
    from sandbox.analysis.summary import summarise_games

    who = {1: "K", 2: "K", 3: "P", 4: "P", 5: "P", 6: "P"}
    (tmp_path / "g").mkdir()
    for name in ("a", "b"):
        write(tmp_path / "g" / f"{name}.jsonl", "killer", K_ROLES, K_EVENTS, contestants=who)
    games = load_games([tmp_path / "g"]).games
    found = lie_summary(games)
    assert found is not None
    # per game: the killers' four decided claims are all lies; the police side's
    # five decided claims hold no lie (its unknowable promise is left out)
    killers, police = found["by_contestant"]["K"], found["by_contestant"]["P"]
    assert (killers["value"], killers["n"], killers["games"]) == (1.0, 8, 2)
    assert (police["value"], police["n"], police["games"]) == (0.0, 10, 2)
    for figure in (killers, police):
        low, high = figure["ci95"]
        assert low <= figure["value"] <= high and low < high
    assert found["labels"] == {"error": 2, "lie": 8, "true": 8, "unknowable": 2}
    assert found["by_role"]["K@killer"]["value"] == 1.0
    # decided promises per game: seat 5's kept one, seat 2's broken one (seat
    # 3's, with no ballot that day, is unknowable and left out)
    promises = found["by_claim_type"]["promise"]
    assert (promises["n"], promises["value"]) == (4, 0.5)
    assert summarise_games(load_games([tmp_path / "g"]))["lies"] == found


def bot_game(tmp_path: Path, variant: str) -> Any:
    spec = tmp_path / f"{variant}.toml"
    spec.write_text(f'variant = "{variant}"\n[run]\nout = "{tmp_path / "out"}"\n', "utf-8")
    run("batch", str(spec), "--games", "1", "--quiet")
    (path,) = (tmp_path / "out").glob("*.jsonl")
    return path


def raw_events(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    return [
        {"seq": x["seq"], "kind": x["kind"], **x["data"]} for x in lines if x["type"] == "event"
    ]


HIDDEN = {"werewolf": "werewolf", "killer": "killer"}


@pytest.mark.parametrize("variant", ["werewolf", "killer"])
def test_a_seeded_bot_game_against_an_independent_count(tmp_path: Path, variant: str) -> None:
    """Counted here from the raw lines alone: every structured claim, the true
    ones (the deal decides), and the lies of the hidden side (its team list
    shows it every seat's side, WW-4/KG-2; its own card every role claim)."""
    path = bot_game(tmp_path, variant)
    roles = {int(s): r for s, r in json.loads(path.read_text().splitlines()[0])["roles"].items()}
    hidden = HIDDEN[variant]
    rows = [r for r in statement_rows(read_game(path)) if r["source"] == "fields"]
    claims, true, hidden_false = 0, 0, 0
    for e in raw_events(path):
        if e["kind"] not in (f"{variant}.speech", f"{variant}.last_words"):
            continue
        said = [(roles[e["seat"]] == e["claim"])] if e.get("claim", "none") != "none" else []
        said += [roles[t] == hidden for t in e.get("accuse", ())]
        said += [roles[t] != hidden for t in e.get("vouch", ())]
        claims += len(said)
        true += sum(said)
        if roles[e["seat"]] == hidden:
            hidden_false += sum(not s for s in said)
    assert claims > 0 and len(rows) == claims
    assert sum(r["label"] == "true" for r in rows) == true
    assert sum(r["label"] == "lie" and r["role"] == hidden for r in rows) == hidden_false
    assert sum(r["label"] in ("lie", "error") for r in rows) == claims - true
    assert {r["label"] for r in rows} <= set(LABELS)


def test_a_seeded_four_factions_game_against_an_independent_count(tmp_path: Path) -> None:
    """Role claims (FF-13) and accusations (FF-14) from the raw lines: a seat
    knows its own faction, so every false proof is a lie."""
    path = bot_game(tmp_path, "four_factions")
    roles = {int(s): r for s, r in json.loads(path.read_text().splitlines()[0])["roles"].items()}
    faction = {s: r.split("/")[0] for s, r in roles.items()}
    rows = [r for r in statement_rows(read_game(path)) if r["source"] == "fields"]
    proofs = [e for e in raw_events(path) if e["kind"] == "ff.proofs"]
    accusations = [e for e in raw_events(path) if e["kind"] == "ff.accusation"]
    mine = Counter((r["claim_type"], r["label"]) for r in rows if r["claim_type"] in ("role",))
    assert mine["role", "lie"] == sum(faction[e["seat"]] != e["am"] for e in proofs)
    assert mine["role", "true"] == sum(faction[e["seat"]] == e["am"] for e in proofs)
    accused = [r for r in rows if r["claim_type"] == "accuse"]
    assert len(accused) == len(accusations)
    assert sum(r["label"] == "true" for r in accused) == sum(
        faction[e["target"]] == e["faction"] for e in accusations
    )


def test_each_variant_declares_its_statements_through_its_research() -> None:
    """Issue 39: the analysis names no variant; each declares its statement
    rules beside its metric table (Research.statements)."""
    from sandbox.core.statements import StatementRules
    from sandbox.core.variant import Research
    from sandbox.games.registry import get_variant

    for name in ("werewolf", "killer", "four_factions"):
        rules = get_variant(name).research.statements()
        assert isinstance(rules, StatementRules) and rules.text, name
    info = get_variant("killer").info
    assert Research(info).statements() is None  # no metrics module, nothing named
    # a metrics module without STATEMENTS declares none
    assert Research(info, metrics="sandbox.core.metrics:Metric").statements() is None
    named = Research(info, statements="sandbox.games.werewolf.metrics:STATEMENTS")
    assert named.statements() is get_variant("werewolf").research.statements()
