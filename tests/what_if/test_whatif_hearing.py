"""A removed speech stays removed wherever a what-if branch is read (issue 21
follow-up): ``sandbox resume`` finishes an interrupted remove_speech branch
exactly as it first went, ``sandbox replay`` passes it (and refuses an
unreadable hiding), ``sandbox fork`` of it keeps its seats deaf, a what-if of
a branch inherits the hiding, and ``sandbox view --seat`` never shows the
speech. All read the header through ``sandbox.session.hearing``.

The games are those of test_whatif.py (fake/reactive, which votes for the seat
most accused in the speeches it was shown, so a seat that heard the removed
speech would show it in its prompts and its ballots)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.core.game import fork_points
from sandbox.session import replay_transcript
from sandbox.session.driver import run_sync
from sandbox.session.errors import SessionError
from sandbox.session.gamefile import load_config
from sandbox.session.hearing import Hearing, hearing_of
from sandbox.session.play import play_game
from sandbox.transcript import Transcript, read_transcript
from sandbox.viewer.timeline import build_timeline
from sandbox.what_if import CONTROL, Intervention, prepare, run_arms
from tests.what_if.test_whatif import _speeches, cases, source

__all__ = ["cases", "source"]  # the fixtures of test_whatif.py, shared
# the module (``sandbox.session.replay`` the attribute is the replay function)
replay_module = sys.modules["sandbox.session.replay"]

BASELINE_GAME = """
variant = "killer"
[rules]
players = 11
day_limit = 2
[default_agent]
kind = "baseline"
"""


@pytest.fixture(scope="module")
def branch(source: Path, cases: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished remove_speech branch of the reacted-to speech."""
    out = tmp_path_factory.mktemp("branch")
    prepared = prepare(source, Intervention("remove_speech", seq=cases["reacted"]))
    run_sync(run_arms(prepared, 1, out, arms=["remove_speech"]))
    return out / "remove_speech-b001.jsonl"


def _cut(path: Path, keep: int, into: Path) -> Path:
    """A copy of ``path`` cut after the ``core.step`` event that makes ``keep``
    events (as a crash between two steps leaves it)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    last = next(
        i
        for i, line in enumerate(lines)
        if json.loads(line).get("type") == "event" and json.loads(line)["seq"] == keep - 1
    )
    into.mkdir(parents=True, exist_ok=True)
    target = into / path.name
    target.write_text("\n".join(lines[: last + 1]) + "\n", encoding="utf-8")
    return target


def _event_lines(transcript: Transcript) -> list[dict[str, Any]]:
    return [e.to_json() for e in transcript.events]


def _heard_line(source: Path, seq: int) -> str:
    """How the referee puts the removed speech's accusation in a prompt."""
    speech = next(s for s in _speeches(source) if s["seq"] == seq)
    said = "'s last words" if speech["kind"] == "killer.last_words" else " says"
    return f"Seat {speech['seat']}{said} (accuses seat"


def _prompts_after(transcript: Transcript, at: int) -> list[str]:
    asked = {e.request_id for e in transcript.events[at:] if hasattr(e, "request_id")}
    return [
        m["content"] for c in transcript.calls if c["request_id"] in asked for m in c["messages"]
    ]


# ------------------------------------------------------------------ resume


def test_sandbox_resume_finishes_a_remove_speech_branch_as_it_first_went(
    branch: Path, source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    """Cut at the fork point itself (nothing played yet) and at a later step:
    ``sandbox resume`` plays the rest with the speech unheard, so every event
    is the uninterrupted branch's (the fake answers per prompt and seed)."""
    original = read_transcript(branch)
    at = int(original.header["forked_from"]["at"])
    later = [p for p in fork_points(original.events) if p > at]
    line = _heard_line(source, cases["reacted"])
    for keep in (at, later[len(later) // 2]):
        cut = _cut(branch, keep, tmp_path / f"cut{keep}")
        assert not read_transcript(cut).finished and len(read_transcript(cut).events) == keep
        done = CliRunner().invoke(app, ["resume", str(cut), "--quiet"])
        assert done.exit_code == 0, done.output
        resumed = read_transcript(cut)
        assert resumed.finished and replay_transcript(resumed) is None
        assert _event_lines(resumed) == _event_lines(original), keep
        assert resumed.header == original.header
        assert not [p for p in _prompts_after(resumed, keep) if line in p]


def test_the_hiding_is_what_made_the_resumed_branch_match(
    branch: Path, source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    """The same cut with the header's hiding taken out plays another game: its
    listeners hear the speech again (the premise of the test above)."""
    original = read_transcript(branch)
    at = int(original.header["forked_from"]["at"])
    cut = _cut(branch, at, tmp_path / "deaf")
    lines = cut.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["forked_from"]["hidden"]
    cut.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert CliRunner().invoke(app, ["resume", str(cut), "--quiet"]).exit_code == 0
    heard = read_transcript(cut)
    line = _heard_line(source, cases["reacted"])
    assert [p for p in _prompts_after(heard, at) if line in p]
    assert _event_lines(heard) != _event_lines(original)


def test_a_resumed_branch_of_replayable_seats_warms_them_with_what_they_heard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Baseline bots are re-asked every recorded question on resume; their
    random draws depend on what their views held (seed 12: a killer's ballot
    draws for a bus only when the crowd's favourite is its mate), so a resume
    that warmed them with the removed speech back in view plays another game."""
    game_file = tmp_path / "bots.toml"
    game_file.write_text(BASELINE_GAME, encoding="utf-8")
    record = play_game(load_config(game_file), 12, tmp_path / "src")
    assert record.path is not None
    speeches = [s for s in _speeches(record.path) if s["accuse"]]
    prepared = prepare(record.path, Intervention("remove_speech", seq=speeches[0]["seq"]))
    run_sync(run_arms(prepared, 1, tmp_path / "out", arms=["remove_speech"]))
    played = tmp_path / "out" / "remove_speech-b001.jsonl"
    original = _event_lines(read_transcript(played))
    points = [p for p in fork_points(read_transcript(played).events) if p > prepared.at]
    keeps = (points[1], points[len(points) // 2], points[-1])
    for keep in keeps:
        cut = _cut(played, keep, tmp_path / f"cut{keep}")
        assert CliRunner().invoke(app, ["resume", str(cut), "--quiet"]).exit_code == 0
        assert _event_lines(read_transcript(cut)) == original, keep
    # the premise: warmed as if they had heard it, the bots go another way
    warm = replay_module._warm

    async def heard_it_all(game: Any, requests: Any, agents: Any, hearing: Hearing) -> None:
        await warm(game, requests, agents, Hearing())

    monkeypatch.setattr(replay_module, "_warm", heard_it_all)
    cut = _cut(played, keeps[1], tmp_path / "warmed-deaf")
    assert CliRunner().invoke(app, ["resume", str(cut), "--quiet"]).exit_code == 0
    assert _event_lines(read_transcript(cut)) != original


# ------------------------------------------------------------------ replay


def test_sandbox_replay_passes_a_remove_speech_branch_and_refuses_a_bad_hiding(
    branch: Path, tmp_path: Path
) -> None:
    done = CliRunner().invoke(app, ["replay", str(branch)])
    assert done.exit_code == 0 and "OK: every event is identical" in done.output
    lines = branch.read_text(encoding="utf-8").splitlines()
    at = json.loads(lines[0])["forked_from"]["at"]
    for hidden, needle in [(["31"], "must be lists of event numbers"), ([at], "is not an event")]:
        header = json.loads(lines[0])
        header["forked_from"]["hidden"] = hidden
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
        done = CliRunner().invoke(app, ["replay", str(bad)])
        assert done.exit_code == 1 and "DIVERGED" in done.output and needle in done.output


# ------------------------------------------------------------------ fork and what-if of a branch


def test_sandbox_fork_of_a_branch_keeps_its_seats_deaf(
    branch: Path, source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    original = read_transcript(branch)
    at = int(original.header["forked_from"]["at"])
    later = next(p for p in fork_points(original.events) if p > at)
    args = ["fork", str(branch), "--at", str(later), "--out", str(tmp_path), "--quiet"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    (path,) = tmp_path.glob("*.jsonl")
    forked = read_transcript(path)
    link = forked.header["forked_from"]
    # still left out from the branch's fork point (its copied decisions after
    # `at` were made deaf), and named so a resume of the fork reads it too
    assert link["hidden"] == original.header["forked_from"]["hidden"]
    assert hearing_of(forked.header) == hearing_of(original.header)
    assert replay_transcript(forked) is None
    line = _heard_line(source, cases["reacted"])
    assert _prompts_after(forked, later) and not [
        p for p in _prompts_after(forked, later) if line in p
    ]


def test_what_a_fork_inherits_of_a_hiding() -> None:
    """Speech 31 and its decision 30 unheard from event 34 (the branch's fork
    point): a fork at 30 keeps neither, one at 32 leaves them out from 32 (all
    it plays itself), one at 40 from 34 as the branch did, which its header
    then has to say (``hidden_from``)."""
    hearing = Hearing({30: 34, 31: 34})
    assert not hearing.before(30) and hearing.before(31) == Hearing({30: 31})
    assert hearing.before(32).link(32) == {"hidden": [30, 31]}
    assert hearing.before(40) == hearing
    assert hearing.before(40).link(40) == {"hidden": [30, 31], "hidden_from": [34, 34]}
    assert hearing_of({"forked_from": {"at": 40, **hearing.link(40)}}) == hearing
    assert hearing_of({"forked_from": {"at": 34, **hearing.link(34)}}) == hearing
    assert hearing.left_out(33) == frozenset() and hearing.left_out(34) == {30, 31}


def test_a_whatif_of_a_branch_inherits_its_hiding_in_both_arms(
    branch: Path, source: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    """The control arm of an experiment on a remove_speech branch is that
    branch's world: its seats never heard the speech either."""
    prepared = prepare(branch, Intervention("remove_speech", seq=cases["ignored"]))
    run_sync(run_arms(prepared, 1, tmp_path))
    line = _heard_line(source, cases["reacted"])
    for arm in (CONTROL, "remove_speech"):
        played = read_transcript(tmp_path / f"{arm}-b001.jsonl")
        hidden = set(played.header["forked_from"]["hidden"])
        assert cases["reacted"] in hidden and (cases["ignored"] in hidden) == (arm != CONTROL)
        assert not [p for p in _prompts_after(played, prepared.at) if line in p]
        assert replay_transcript(played) is None


def test_a_change_after_an_inherited_hiding_is_refused(branch: Path, cases: dict[str, Any]) -> None:
    """Re-refereeing from a decision before the hidden speech could move it; a
    fork point before the speech inherits nothing, so that change is taken."""
    seq = night_seq(branch)
    fields = dict(getattr(read_transcript(branch).events[seq], "payload", {}))
    change = Intervention("change_decision", seq=seq, fields=fields)
    at = int(read_transcript(branch).header["forked_from"]["at"])
    with pytest.raises(SessionError, match="branch its source game instead") as caught:
        prepare(branch, change, at=at)
    assert "\n" not in str(caught.value)
    early = prepare(branch, change)
    assert early.at < cases["reacted"] and not early.hearing_for(CONTROL)


def night_seq(path: Path) -> int:
    return next(i for i, e in enumerate(read_transcript(path).events) if e.kind == "core.decision")


# ------------------------------------------------------------------ view


def test_view_seat_does_not_show_the_removed_speech(
    branch: Path, source: Path, cases: dict[str, Any]
) -> None:
    hidden = set(read_transcript(branch).header["forked_from"]["hidden"])
    assert cases["reacted"] in hidden
    recorded = read_transcript(branch)
    for seat in range(1, 12):
        shown = {e.seq for e in build_timeline(recorded, seat).entries}
        assert not shown & hidden, seat
        page = CliRunner().invoke(app, ["view", str(branch), "--seat", str(seat)])
        assert page.exit_code == 0 and f"#{cases['reacted']} " not in page.output
    # the referee saw it said, and in the source game every seat heard it
    assert cases["reacted"] in {e.seq for e in build_timeline(recorded, None).entries}
    referee = CliRunner().invoke(app, ["view", str(branch)])
    assert f"#{cases['reacted']} " in referee.output
    heard = CliRunner().invoke(app, ["view", str(source), "--seat", "2"])
    assert f"#{cases['reacted']} " in heard.output


def test_the_seat_page_of_a_branch_leaves_it_out_too(
    branch: Path, cases: dict[str, Any], tmp_path: Path
) -> None:
    page = tmp_path / "seat2.html"
    done = CliRunner().invoke(app, ["view", str(branch), "--seat", "2", "--html", str(page)])
    assert done.exit_code == 0
    referee = tmp_path / "referee.html"
    CliRunner().invoke(app, ["view", str(branch), "--html", str(referee)])
    marker = f'id="e{cases["reacted"]}"'
    assert marker in referee.read_text(encoding="utf-8")
    assert marker not in page.read_text(encoding="utf-8")
