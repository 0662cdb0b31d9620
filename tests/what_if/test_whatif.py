"""What-if experiments on a saved game (issue 21, item 1), on the fake provider's
``reactive`` policy: it votes, with probability 0.9, for the seat most accused
in the speeches it was shown, so removing a speech that decides who is most
accused must move the next vote, and removing a speech without an accusation
must not.

The source game: Killer, 11 seats, one day (``day_limit = 1``); seats 1-10 play
``fake/reactive``, seat 11 ``fake/illegal`` (its speech falls back to an empty
one: no accusation, a speech the policy ignores)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import sandbox
from sandbox.cli.main import app
from sandbox.session import replay_transcript
from sandbox.session.driver import run_sync
from sandbox.session.errors import SessionError
from sandbox.session.gamefile import load_config
from sandbox.session.play import play_game
from sandbox.transcript import read_transcript
from sandbox.what_if import CONTROL, Intervention, prepare, run_arms, whatif

GAME_FILE = """
variant = "killer"
name = "killer-reactive"
[rules]
players = 11
day_limit = 1
[default_agent]
kind = "llm"
model = "fake/reactive"
timeout_s = 10
[[agent]]
kind = "llm"
model = "fake/illegal"
seats = [11]
timeout_s = 10
[llm]
max_repairs = 0
"""
SEED = 1
K = 8


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("whatif")
    game_file = folder / "reactive.toml"
    game_file.write_text(GAME_FILE, encoding="utf-8")
    record = play_game(load_config(game_file), SEED, folder / "source")
    assert record.path is not None
    return record.path


def _events(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [
        {"seq": o["seq"], "kind": o["kind"], **o["data"]} for o in lines if o["type"] == "event"
    ]


def _speeches(path: Path) -> list[dict[str, Any]]:
    return [e for e in _events(path) if e["kind"] in ("killer.speech", "killer.last_words")]


def _voted_out(path: Path) -> int:
    return int(next(e["seat"] for e in _events(path) if e["kind"] == "killer.voted_out"))


@pytest.fixture(scope="module")
def cases(source: Path) -> dict[str, Any]:
    """The speech the vote followed and the one nobody could react to."""
    speeches = _speeches(source)
    first = next(s for s in speeches if s["accuse"])
    ignored = next(s for s in speeches if not s["accuse"] and s["seq"] > first["seq"])
    target = _voted_out(source)
    # the premise: the first accusation named the seat the day's herd voted out,
    # and the ignored speech came before that vote
    assert target in first["accuse"]
    assert ignored["seat"] == 11 and ignored["text"] == ""
    return {"reacted": first["seq"], "ignored": ignored["seq"], "target": target}


@pytest.fixture(scope="module")
def reacted(source: Path, cases: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("reacted")
    ivn = Intervention("remove_speech", seq=cases["reacted"])
    return whatif(source, ivn, branches=K, out=out, jobs=4, against=[cases["target"]])


def _row(result: Any, outcome: str) -> dict[str, Any]:
    return next(r for r in result.effects if r["outcome"] == outcome)


def test_removing_a_speech_the_policy_reacts_to_has_an_effect_excluding_zero(
    reacted: Any, cases: dict[str, Any]
) -> None:
    row = _row(reacted, f"ballots_against:{cases['target']}")
    assert row["n_control"] == row["n_treated"] == K
    assert row["control"] > 3 and row["treated"] < row["control"]
    assert row["ci95"][1] < 0 and row["excludes_zero"]
    assert row["method"] == "bootstrap"


def test_removing_a_speech_the_policy_ignores_gives_an_interval_including_zero(
    source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    ivn = Intervention("remove_speech", seq=cases["ignored"])
    result = whatif(source, ivn, branches=K, out=tmp_path, jobs=4, against=[cases["target"]])
    row = _row(result, f"ballots_against:{cases['target']}")
    assert row["ci95"][0] <= 0 <= row["ci95"][1] and not row["excludes_zero"]
    for win in (r for r in result.effects if r["outcome"].startswith("win:")):
        assert win["method"] == "newcombe" and win["ci95"][0] <= 0 <= win["ci95"][1]


def test_every_branch_is_a_normal_transcript_linked_to_its_source(
    reacted: Any, source: Path, cases: dict[str, Any]
) -> None:
    arms = {(b.arm, b.branch_seed) for b in reacted.branches}
    assert arms == {(a, k) for a in (CONTROL, "remove_speech") for k in range(1, K + 1)}
    for branch in reacted.branches:
        recorded = read_transcript(branch.path)
        link = recorded.header["forked_from"]
        assert link["transcript"] == str(source.resolve()) and link["at"] == reacted.at
        assert link["arm"] == branch.arm and link["branch_seed"] == branch.branch_seed
        assert recorded.header["branch_seed"] == branch.branch_seed
        kind = link["intervention"]["kind"]
        assert kind == (CONTROL if branch.arm == CONTROL else "remove_speech")
        assert recorded.finished and replay_transcript(recorded) is None
        # every model call the branch made itself (after `at`) carries a seed
        played = {e.request_id for e in recorded.events[link["at"] :] if hasattr(e, "request_id")}
        mine = [c for c in recorded.calls if c["request_id"] in played]
        assert mine and all(isinstance(c.get("seed"), int) for c in mine)
    treated = next(b for b in reacted.branches if b.arm == "remove_speech")
    assert read_transcript(treated.path).header["forked_from"]["hidden"][-1] == cases["reacted"]


def test_sandbox_replay_and_view_take_a_branch(reacted: Any) -> None:
    path = str(reacted.branches[-1].path)
    done = CliRunner().invoke(app, ["replay", path])
    assert done.exit_code == 0 and "OK: every event is identical" in done.output
    shown = CliRunner().invoke(app, ["view", path])
    assert shown.exit_code == 0 and "fake/reactive" in shown.output


def test_the_removed_speech_is_in_no_listener_prompt_after_the_fork(
    reacted: Any, source: Path, cases: dict[str, Any]
) -> None:
    speech = next(s for s in _speeches(source) if s["seq"] == cases["reacted"])
    # the referee's line of that speech (or last words) in a listener's record
    said = "'s last words" if speech["kind"] == "killer.last_words" else " says"
    line = f"Seat {speech['seat']}{said} (accuses seat"
    for branch in reacted.branches:
        recorded = read_transcript(branch.path)
        after = [c for c in recorded.calls if c.get("seed") is not None]
        assert after
        heard = [c for c in after if any(line in m["content"] for m in c["messages"])]
        assert bool(heard) == (branch.arm == CONTROL)


def test_a_rerun_plays_no_branch_again(reacted: Any, source: Path, cases: dict[str, Any]) -> None:
    again = whatif(
        source,
        Intervention("remove_speech", seq=cases["reacted"]),
        branches=K,
        out=reacted.out,
        against=[cases["target"]],
    )
    assert not any(b.played for b in again.branches)
    assert again.effects == reacted.effects


def test_an_interrupted_branch_is_finished_in_its_own_file(reacted: Any, tmp_path: Path) -> None:
    """Cut a finished branch back to a step boundary: the rerun finishes it, and
    (the fake being deterministic per prompt and seed) exactly as it first went."""
    branch = next(b for b in reacted.branches if b.arm == "remove_speech")
    lines = branch.path.read_text(encoding="utf-8").splitlines()
    steps = [i for i, line in enumerate(lines) if json.loads(line).get("kind") == "core.step"]
    cut = steps[-2] + 1
    out = tmp_path / "cut"
    out.mkdir()
    shutil.copy(branch.path, out / branch.path.name)
    (out / branch.path.name).write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    prepared = prepare(Path(reacted.source), reacted.intervention)
    played = run_sync(run_arms(prepared, 1, out, arms=["remove_speech"]))
    assert played[0].played
    resumed = read_transcript(out / branch.path.name)
    original = read_transcript(branch.path)
    assert resumed.finished and replay_transcript(resumed) is None
    assert [e.to_json() for e in resumed.events] == [e.to_json() for e in original.events]


# ------------------------------------------------------------ the other arms


def test_pass_and_replace_speech_rereferee_the_speakers_decision(
    source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    seq = cases["reacted"]
    passed = prepare(source, Intervention("pass_speech", seq=seq))
    run_sync(run_arms(passed, 1, tmp_path / "pass", arms=["pass_speech"]))
    said = _events(tmp_path / "pass" / "pass_speech-b001.jsonl")[seq]
    assert said["text"] == "pass" and said["accuse"] == [] and said["vouch"] == []
    speaker = _events(source)[seq]["seat"]
    other = next(s for s in (2, 3) if s != speaker)
    # The new speech replaces the old one's fields too: no vouch left from the old
    # speech may name the seat it now accuses (KG-14).
    fields = {"text": f"Seat {other} is lying.", "accuse": [other], "vouch": []}
    replaced = prepare(source, Intervention("replace_speech", seq=seq, fields=fields))
    run_sync(run_arms(replaced, 1, tmp_path / "replace", arms=["replace_speech"]))
    path = tmp_path / "replace" / "replace_speech-b001.jsonl"
    said = _events(path)[seq]
    assert said["text"] == f"Seat {other} is lying." and said["accuse"] == [other]
    assert said["vouch"] == []
    assert replay_transcript(read_transcript(path)) is None
    # the speaker's old call lines are not copied for the decision it no longer made
    request = next(e["request_id"] for e in _events(source) if e["seq"] == replaced.decision_seq)
    assert not [c for c in read_transcript(path).calls if c["request_id"] == request]


def test_change_decision_and_replace_agent(source: Path, tmp_path: Path) -> None:
    events = _events(source)
    ballot = next(e for e in events if e.get("decision") == "vote" and e["payload"]["target"])
    changed = prepare(
        source, Intervention("change_decision", seq=ballot["seq"], fields={"target": None})
    )
    run_sync(run_arms(changed, 1, tmp_path / "c", arms=["change_decision"]))
    redone = _events(tmp_path / "c" / "change_decision-b001.jsonl")
    assert redone[ballot["seq"]]["payload"]["target"] is None
    first_speech = _speeches(source)[0]["seq"]
    at = next(e["seq"] for e in events if e["seq"] > first_speech and e["kind"] == "core.step") + 1
    agent = {"kind": "random"}
    swapped = prepare(source, Intervention("replace_agent", seat=3, agent=agent), at=at)
    run_sync(run_arms(swapped, 2, tmp_path / "a"))
    header = read_transcript(tmp_path / "a" / "replace_agent-b001.jsonl").header
    assert header["agents"]["3"]["kind"] == "random"
    assert header["forked_from"]["agents"]["3"]["model"] == "fake/reactive"  # before `at`
    control = read_transcript(tmp_path / "a" / "control-b001.jsonl").header
    assert control["agents"]["3"]["model"] == "fake/reactive"


@pytest.mark.parametrize(
    ("intervention", "at", "needle"),
    [
        (Intervention("remove_speech", seq=10_000), None, "out of range"),
        (Intervention("remove_speech", seq=0), None, "not a speech"),
        (Intervention("change_decision", seq=0), None, "not a decision"),
        (
            Intervention("replace_agent", seat=99, agent={"kind": "random"}),
            30,
            "seat 99 out of range",
        ),
        (Intervention("replace_agent", seat=2, agent={"kind": "nope"}), 30, "the new agent"),
        (Intervention("replace_agent", seat=2, agent={"kind": "random"}), None, "give --at"),
        (Intervention("remove_speech", seq=31), 1, "not a step boundary"),
    ],
)
def test_bad_interventions_are_one_line_errors(
    source: Path, intervention: Intervention, at: int | None, needle: str
) -> None:
    with pytest.raises(SessionError, match=needle) as caught:
        prepare(source, intervention, at)
    assert "\n" not in str(caught.value)


def test_an_illegal_new_answer_is_refused(source: Path) -> None:
    ballot = next(e for e in _events(source) if e.get("decision") == "vote")
    ivn = Intervention("change_decision", seq=ballot["seq"], fields={"target": 99})
    from sandbox.what_if.intervention import prefix_events

    with pytest.raises(SessionError, match="the new answer is not legal here"):
        prefix_events(prepare(source, ivn), "change_decision")


def test_cli_prints_the_table_and_json_and_one_line_errors(
    reacted: Any, source: Path, cases: dict[str, Any]
) -> None:
    runner = CliRunner()
    args = ["whatif", str(source), "--remove-speech", str(cases["reacted"]), "-k", str(K)]
    args += ["--out", str(reacted.out), "--against", str(cases["target"])]
    shown = runner.invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert f"ballots_against:{cases['target']}" in shown.output and " *" in shown.output
    as_json = runner.invoke(app, [*args, "--json"])
    data = json.loads(as_json.stdout)
    assert data["effects"] == reacted.effects and data["played_now"] == 0
    for bad, needle in [
        (["--remove-speech", "100000"], "out of range"),
        (["--replace-speech", str(cases["reacted"])], "needs --text"),
        (["--change-decision", "0"], "needs --answer"),
        ([], "give exactly one intervention"),
        (["--remove-speech", str(cases["reacted"]), "--against", "40"], "seat 40 out of range"),
        (["--seat", "2", "--agent", "{{"], "--agent"),
    ]:
        done = runner.invoke(app, ["whatif", str(source), *bad])
        assert done.exit_code == 2, (bad, done.output)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], lines


def test_the_python_api_exports_whatif() -> None:
    assert sandbox.whatif is whatif and sandbox.Intervention is Intervention
