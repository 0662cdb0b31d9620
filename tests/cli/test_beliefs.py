"""Belief probes in ``sandbox stats --beliefs`` and the referee's ``sandbox view``.

Two kinds of transcript: a short Killer game played by the fake LLM with the
probe on (the real path end to end), and a Killer game of random seats into
which call lines with hand-written beliefs are put, so that every figure can be
checked exactly against numbers worked out here by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app

KILLER_FAKE = """variant = "killer"
seed = 5
[rules]
players = 11
day_limit = 1
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[llm]
language = "en"
belief_probe = true
max_repairs = 1
concurrency = 8
[run]
out = "{out}"
"""

KILLER_RANDOM = """variant = "killer"
seed = 11
[rules]
players = 11
day_limit = 2
[default_agent]
kind = "random"
[run]
out = "{out}"
"""


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def play(tmp: Path, config_text: str) -> Path:
    config = tmp / "game.toml"
    config.write_text(config_text.format(out=tmp / "out"), encoding="utf-8")
    result = invoke("run", str(config), "--json")
    assert result.exit_code == 0, result.stderr
    return Path(json.loads(result.stdout)["transcript"])


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def beliefs_json(*paths: Path) -> dict[str, Any]:
    result = invoke("stats", *map(str, paths), "--beliefs", "--json")
    assert result.exit_code == 0, result.stderr
    figures: dict[str, Any] = json.loads(result.stdout)["variants"]["killer"]["beliefs"]
    return figures


# ------------------------------------------------------------ fake LLM game


@pytest.fixture(scope="module")
def fake_game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield play(tmp_path_factory.mktemp("fake"), KILLER_FAKE)


def probed_calls(path: Path) -> list[dict[str, Any]]:
    return [x for x in lines_of(path) if x["type"] == "call" and "beliefs" in x]


def test_every_fake_decision_carries_a_probe_and_stats_count_them(fake_game: Path) -> None:
    calls = probed_calls(fake_game)
    assert calls, "the fake model answers the beliefs object of the schema"
    figures = beliefs_json(fake_game)
    assert figures["probes"] == len(calls)
    assert figures["guesses"] == sum(len(c["beliefs"]) for c in calls)
    assert figures["dropped"] == 0
    accuracy = figures["accuracy"]
    assert accuracy["committed"] + figures["unknown"] == figures["guesses"]
    assert 0 <= accuracy["right"] <= accuracy["committed"]
    low, high = accuracy["ci95"]
    assert low <= accuracy["rate"] <= high  # one game: the interval is the point
    # every split covers every guess
    for split in ("by_guesser", "by_target", "by_day"):
        cells = figures[split].values()
        assert sum(c["committed"] + c["unknown"] for c in cells) == figures["guesses"]
    assert set(figures["by_day"]) == {"1"}  # day_limit = 1


def test_the_text_report_shows_the_belief_section(fake_game: Path) -> None:
    result = invoke("stats", str(fake_game), "--beliefs")
    assert result.exit_code == 0, result.stderr
    assert f"beliefs: {len(probed_calls(fake_game))} probes in 1 transcript" in result.stdout
    assert "belief accuracy" in result.stdout and "95% CI" in result.stdout
    for title in ("guessing seat's role", "target's true side", "day"):
        assert title in result.stdout
    plain = invoke("stats", str(fake_game))
    assert "belief" not in plain.stdout  # only when asked for
    assert (
        "beliefs"
        not in json.loads(invoke("stats", str(fake_game), "--json").stdout)["variants"]["killer"]
    )


def test_referee_view_marks_each_guess_against_the_true_side(fake_game: Path) -> None:
    roles = lines_of(fake_game)[0]["roles"]
    first = probed_calls(fake_game)[0]
    expected = []
    for seat, spread in first["beliefs"].items():  # shown: the most likely side, its p
        truth = roles[seat].split("/")[0]
        said = max(sorted(spread), key=lambda label: spread[label])
        mark = " ✓" if said == truth else " ✗"
        expected.append(f"{seat}→{said} {spread[said]:.2f}{mark}")
    line = "beliefs: " + ", ".join(expected)
    result = CliRunner().invoke(app, ["view", str(fake_game)], env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.stderr
    assert line in result.stdout
    assert result.stdout.count("beliefs: ") == len(probed_calls(fake_game))
    html = fake_game.with_suffix(".html")
    assert invoke("view", str(fake_game), "--html", str(html)).exit_code == 0
    assert line in html.read_text(encoding="utf-8")


def test_no_seat_view_ever_shows_beliefs(fake_game: Path) -> None:
    seats = sorted(int(s) for s in lines_of(fake_game)[0]["roles"])
    for seat in seats:
        shown = invoke("view", str(fake_game), "--seat", str(seat))
        assert shown.exit_code == 0, shown.stderr
        assert "beliefs" not in shown.stdout and "✓" not in shown.stdout
    html = fake_game.with_suffix(".seat.html")
    assert invoke("view", str(fake_game), "--seat", "1", "--html", str(html)).exit_code == 0
    page = html.read_text(encoding="utf-8")
    assert "beliefs:" not in page and '<div class="call' not in page


# ------------------------------------------------- hand-written beliefs


def decision_days(lines: list[dict[str, Any]]) -> dict[str, int]:
    """request_id -> day, read from the Killer night and phase announcements."""
    days: dict[str, int] = {}
    day = 0
    for line in lines:
        if line.get("kind") == "killer.night":
            day = line["data"]["night"]
        elif line.get("kind") == "killer.phase":
            day = line["data"]["day"]
        elif line.get("kind") == "core.decision":
            days[line["data"]["request_id"]] = day
    return days


def with_calls(path: Path, calls: list[dict[str, Any]]) -> Path:
    """The transcript with these call lines put in before its outcome line."""
    lines = lines_of(path)
    assert lines[-1]["type"] == "outcome"
    out = path.with_name("handmade.jsonl")
    text = "".join(json.dumps(x) + "\n" for x in [*lines[:-1], *calls, lines[-1]])
    out.write_text(text, encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def handmade(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Day 1: a civilian guesses a killer right, a police seat right, a civilian
    wrong (as killer) and says unknown once: 2 of 3. Day 2: a killer guesses a
    civilian right: 1 of 1. One more call's beliefs were dropped."""
    played = play(tmp_path_factory.mktemp("handmade"), KILLER_RANDOM)
    lines = lines_of(played)
    roles: dict[str, str] = lines[0]["roles"]
    by_role: dict[str, list[str]] = {}
    for seat, role in sorted(roles.items(), key=lambda kv: int(kv[0])):
        by_role.setdefault(role, []).append(seat)
    killer, police = by_role["killer"][0], by_role["police"][0]
    guesser, civ1, civ2 = by_role["civilian"][:3]
    days = decision_days(lines)
    day1 = next(r for r, d in days.items() if d == 1)
    day2 = next(r for r, d in days.items() if d == 2)
    calls = [
        call(guesser, day1, {killer: "killer", police: "police", civ1: "killer", civ2: "unknown"}),
        call(killer, day2, {civ1: "civilian"}),
        {**call(police, day2, {}), "beliefs_error": "beliefs missing"},
    ]
    del calls[2]["beliefs"]
    return with_calls(played, calls)


def call(seat: str, request_id: str, beliefs: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "call",
        "seat": int(seat),
        "request_id": request_id,
        "decision": request_id.split(".")[-1],
        "model": "hand/made",
        "raw": "{}",
        "parsed": {},
        "error": None,
        "beliefs": beliefs,
    }


def test_handmade_figures_are_exact(handmade: Path) -> None:
    figures = beliefs_json(handmade)
    assert figures["probes"] == 2 and figures["dropped"] == 1
    assert figures["guesses"] == 5 and figures["unknown"] == 1
    assert figures["unknown_share"] == 0.2
    assert figures["accuracy"]["right"] == 3 and figures["accuracy"]["committed"] == 4
    assert figures["accuracy"]["rate"] == 0.75
    cell = {
        k: {n: (c["right"], c["committed"]) for n, c in v.items()}
        for k, v in figures.items()
        if k.startswith("by_")
    }
    assert cell["by_day"] == {"1": (2, 3), "2": (1, 1)}
    assert cell["by_guesser"] == {"civilian": (2, 3), "killer": (1, 1)}
    assert cell["by_target"] == {"civilian": (1, 2), "killer": (1, 1), "police": (1, 1)}
    assert figures["by_target"]["civilian"]["unknown"] == 1


def test_handmade_view_marks_and_dropped_reason(handmade: Path) -> None:
    result = CliRunner().invoke(app, ["view", str(handmade)], env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.stderr
    marks = [x.strip() for x in result.stdout.splitlines() if x.strip().startswith("beliefs:")]
    assert len(marks) == 3
    assert sum(x.count("✓") for x in marks) == 3 and sum(x.count("✗") for x in marks) == 1
    assert "beliefs: dropped: beliefs missing" in marks


def test_bootstrap_interval_is_seeded_and_spans_the_games(handmade: Path, fake_game: Path) -> None:
    first = beliefs_json(handmade, fake_game)["accuracy"]
    again = beliefs_json(handmade, fake_game)["accuracy"]
    assert first == again
    low, high = first["ci95"]
    # resampling whole games: the top is the hand-made game drawn twice (3/4),
    # above the fake random guesser (about 1 in 3)
    assert low < high and low <= first["rate"] <= high
    assert high == 0.75


def test_transcripts_without_probes_say_so(tmp_path: Path) -> None:
    played = play(tmp_path, KILLER_RANDOM)
    result = invoke("stats", str(played), "--beliefs")
    assert result.exit_code == 0, result.stderr
    assert "no belief probes found" in result.stdout
    figures = beliefs_json(played)
    assert figures["probes"] == 0 and figures["guesses"] == 0
    assert figures["accuracy"]["rate"] is None and figures["accuracy"]["ci95"] is None
    view = invoke("view", str(played))
    assert view.exit_code == 0 and "beliefs:" not in view.stdout
