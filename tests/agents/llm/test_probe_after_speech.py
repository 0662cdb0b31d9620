"""``probe_after_speech``: a probe-only call to every living listener after each
public speech, end to end on the fake provider: the lines it writes, that the
game replays with them, and that resume neither re-asks a finished probe nor
misses one when the game was cut while the listeners were being probed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.games.registry import SPEECH_KINDS

GAME = """variant = "killer"
seed = 5
[rules]
players = 11
day_limit = 1
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[[agent]]
seats = [2, 9]
kind = "random"
[llm]
language = "en"
probe_after_speech = true
max_repairs = 1
[run]
out = "{out}"
"""
RANDOM_SEATS = {2, 9}  # no probes for them: only LLM seats with the setting are asked


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def probe_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in lines if x["type"] == "call" and x.get("probe")]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("probe")
    config = tmp / "game.toml"
    config.write_text(GAME.format(out=tmp / "out"), encoding="utf-8")
    result = invoke("run", str(config), "--json")
    assert result.exit_code == 0, result.stderr
    return Path(json.loads(result.stdout)["transcript"])


def owed_probes(lines: list[dict[str, Any]]) -> dict[int, set[int]]:
    """seq -> the seats a probe is owed to there, worked out from the event
    lines alone: where a step that holds a public speech has been resolved and
    the next decision opens, every living LLM seat but the speaker."""
    living = {int(s) for s in lines[0]["roles"]}
    events = [x for x in lines if x["type"] == "event"]
    owed: dict[int, set[int]] = {}
    speakers: set[int] = set()
    for index, event in enumerate(events):
        data = event["data"]
        if index and events[index - 1]["kind"] == "core.step" and event["kind"] == "core.decision":
            if speakers:
                owed[index] = living - speakers - RANDOM_SEATS
            speakers = set()
        if event["kind"] == "killer.dawn" and data.get("victim") is not None:
            living.discard(int(data["victim"]))
        if event["kind"] == "killer.voted_out":
            living.discard(int(data["seat"]))
        if event["kind"] in SPEECH_KINDS:
            speakers.add(int(data["seat"]))
    return owed


def asked(lines: list[dict[str, Any]]) -> dict[int, list[int]]:
    """seq -> the seats probed there, in file order (a seat twice = asked twice)."""
    out: dict[int, list[int]] = {}
    for call in probe_lines(lines):
        out.setdefault(int(call["seq"]), []).append(int(call["seat"]))
    return out


def test_every_listener_is_probed_once_after_every_speech(played: Path) -> None:
    lines = lines_of(played)
    owed = owed_probes(lines)
    assert len(owed) >= 8  # last words and a round of speeches
    got = asked(lines)
    assert {seq: sorted(seats) for seq, seats in got.items()} == {
        seq: sorted(seats) for seq, seats in owed.items()
    }
    for seats in got.values():
        assert seats == sorted(seats)  # written in seat order, however fast each answered


def test_probe_lines_carry_normalised_distributions_and_no_decision(played: Path) -> None:
    lines = lines_of(played)
    probes = probe_lines(lines)
    decided = {
        x["data"]["request_id"]
        for x in lines
        if x["type"] == "event" and x["kind"] == "core.decision"
    }
    for call in probes:
        assert call["request_id"] == f"probe:{call['seq']}:{call['seat']}"
        assert call["request_id"] not in decided and call["decision"] == "belief_probe"
        assert call["probe"] == "after_speech" and "beliefs_error" not in call
        for spread in call["beliefs"].values():
            assert set(spread) == {"killer", "police", "civilian"}
            assert sum(spread.values()) == pytest.approx(1.0, abs=1e-5)
        assert int(call["seat"]) not in [int(s) for s in call["beliefs"]]


def test_the_game_replays_and_its_counters_include_the_probe_calls(played: Path) -> None:
    result = invoke("replay", str(played))
    assert result.exit_code == 0, result.stdout
    assert "identical" in result.stdout
    lines = lines_of(played)
    calls = [x for x in lines if x["type"] == "call"]
    assert lines[-1]["stats"]["calls"] == len(calls) > len(probe_lines(lines))


def events_of(lines: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(x["kind"], x["data"]) for x in lines if x["type"] == "event"]


def beliefs_of(lines: list[dict[str, Any]]) -> dict[tuple[int, int], Any]:
    return {(int(c["seq"]), int(c["seat"])): c["beliefs"] for c in probe_lines(lines)}


def cut_files(played: Path, tmp: Path) -> dict[str, Path]:
    """Copies of the finished game cut (a) after the first probe line of the
    third probed position, (b) right after that position's speech step, before
    any of its probes."""
    lines = played.read_text(encoding="utf-8").splitlines(keepends=True)
    parsed = [json.loads(x) for x in lines]
    seq = sorted(asked(parsed))[2]
    first_probe = next(
        i for i, x in enumerate(parsed) if x["type"] == "call" and x.get("seq") == seq
    )
    mid = tmp / "mid.jsonl"
    mid.write_text("".join(lines[: first_probe + 1]), encoding="utf-8")
    before = tmp / "before.jsonl"
    before.write_text("".join(lines[:first_probe]), encoding="utf-8")
    return {"mid": mid, "before": before}


@pytest.mark.parametrize("where", ["mid", "before"])
def test_resume_asks_exactly_the_probes_still_owed(
    played: Path, tmp_path: Path, where: str
) -> None:
    path = cut_files(played, tmp_path)[where]
    cut = lines_of(path)
    assert cut[-1]["type"] == ("call" if where == "mid" else "event")
    result = invoke("resume", str(path))
    assert result.exit_code == 0, result.stderr
    lines = lines_of(path)
    owed = owed_probes(lines)
    got = asked(lines)
    # nobody asked twice at one position, nobody owed left out
    assert {seq: sorted(seats) for seq, seats in got.items()} == {
        seq: sorted(seats) for seq, seats in owed.items()
    }
    assert invoke("replay", str(path)).exit_code == 0
    assert lines[: len(cut)] == cut  # appended to, never rewritten
    # The fake answers a function of the prompt, so the resumed game is the
    # uncut one: the same events, and the same beliefs at every position.
    original = lines_of(played)
    assert events_of(lines) == events_of(original)
    assert beliefs_of(lines) == beliefs_of(original)


def test_a_fork_copies_earlier_probes_and_asks_those_owed_at_its_point(
    played: Path, tmp_path: Path
) -> None:
    at = sorted(asked(lines_of(played)))[3]  # right after a speech step: a step boundary
    result = invoke("fork", str(played), "--at", str(at), "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr + result.stdout
    (forked,) = tmp_path.glob("*.jsonl")
    lines = lines_of(forked)
    source = asked(lines_of(played))
    got = asked(lines)
    assert {seq: seats for seq, seats in got.items() if seq < at} == {
        seq: seats for seq, seats in source.items() if seq < at
    }
    assert {seq: sorted(seats) for seq, seats in got.items()} == {
        seq: sorted(seats) for seq, seats in owed_probes(lines).items()
    }
    assert invoke("replay", str(forked)).exit_code == 0


def test_the_probes_never_change_the_game(played: Path, tmp_path: Path) -> None:
    """The same game file without the setting: the same events, line for line
    (the fake answers a function of the prompt, and decisions' prompts do not
    change), and no probe line."""
    config = tmp_path / "game.toml"
    text = GAME.format(out=tmp_path / "out").replace("probe_after_speech = true\n", "")
    config.write_text(text, encoding="utf-8")
    result = invoke("run", str(config), "--json")
    assert result.exit_code == 0, result.stderr
    plain = lines_of(Path(json.loads(result.stdout)["transcript"]))
    assert not probe_lines(plain)
    assert events_of(plain) == events_of(lines_of(played))
