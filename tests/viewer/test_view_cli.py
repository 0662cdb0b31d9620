"""`sandbox view` in the terminal and as files: event numbers, filters, model
calls, claims for every audience, one line per speech, the folder index, and the
committed sample page kept up to date with the renderer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.transcript import read_transcript
from sandbox.viewer.site import game_page
from tests.viewer.games import played_transcript

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "docs" / "sample" / "killer-sample.jsonl"
SAMPLE_PAGE = ROOT / "docs" / "sample-game.html"
SAMPLE_ARG = "docs/sample/killer-sample.jsonl"  # the path the page's fork commands name


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def test_the_sample_page_is_up_to_date() -> None:
    """Regenerate after a wording or viewer change:
    .venv/bin/sandbox view docs/sample/killer-sample.jsonl --html docs/sample-game.html"""
    page = game_page(read_transcript(SAMPLE), None, None, SAMPLE_ARG)
    assert SAMPLE_PAGE.read_text("utf-8") == page, "docs/sample-game.html is stale: regenerate it"


def test_lines_carry_event_numbers_roles_and_controllers() -> None:
    out = invoke("view", str(SAMPLE)).stdout
    numbered = [line for line in out.splitlines() if re.match(r"#\d+ ", line)]
    assert len(numbered) > 50
    assert re.search(r"#\d+ · killer, fake/legal-random  Seat [12] ", out)
    assert re.search(r"#\d+ · \w+, baseline bot  Seat \d+ ", out)


def test_a_speech_with_a_note_is_said_once() -> None:
    out = invoke("view", str(SAMPLE)).stdout
    spoken = [
        e
        for e in lines_of(SAMPLE)
        if e.get("kind") in ("killer.speech", "killer.last_words") and e["data"]["text"]
    ]
    noted = [e for e in lines_of(SAMPLE) if e.get("kind") == "core.decision" and e["data"]["note"]]
    assert spoken and noted
    texts = [e["data"]["text"] for e in spoken]
    for text in set(texts):
        assert out.count(f'"{text}"') == texts.count(text), text  # never also the decision
    assert out.count("note: ") == len(noted)


def test_seat_view_says_own_decisions_in_the_second_person_and_hides_notes() -> None:
    out = invoke("view", str(SAMPLE), "--seat", "4").stdout
    assert re.search(r"#\d+  You vote for seat \d+\.", out)
    assert "note:" not in out and "call:" not in out and "fake/" not in out.split("Outcome")[0]


@pytest.mark.parametrize("seat", [None, 3])
def test_four_factions_claims_are_shown_to_every_audience(tmp_path: Path, seat: int | None) -> None:
    transcript = played_transcript(tmp_path, "four_factions", seed=1)
    extra = [] if seat is None else ["--seat", str(seat)]
    out = invoke("view", str(transcript.path), *extra).stdout
    for event in transcript.events:
        data = event.to_json()["data"]
        if event.kind == "ff.proofs":
            assert f"Seat {data['seat']} claims to be {data['am']} (denies" in out
        if event.kind == "ff.accusation":
            said = f"Seat {data['seat']} accuses seat {data['target']} of being {data['faction']}"
            assert said in out


def test_day_grep_and_calls_filters() -> None:
    day2 = invoke("view", str(SAMPLE), "--day", "2").stdout
    titles = re.findall(r"─ (Day \d+[^─]*|Night \d+|Setup) ─", day2)
    assert titles and all(t.startswith(("Day 2", "Night 2")) for t in titles)
    assert "Outcome:" not in day2
    grep = invoke("view", str(SAMPLE), "--grep", "votes for").stdout
    numbered = [line for line in grep.splitlines() if line.startswith("#")]
    assert numbered and all("votes for" in line for line in numbered)
    assert "No line matches." in invoke("view", str(SAMPLE), "--grep", "zzzz-none").stdout
    calls = invoke("view", str(SAMPLE), "--calls").stdout
    count = sum(1 for e in lines_of(SAMPLE) if e["type"] == "call")
    assert calls.count("      system:") == count and calls.count("      answer: ") == count


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--calls", "--seat", "2"], "--calls"),
        (["--html", "x.html", "--day", "1"], "--day"),
        (["--language", "fr"], "--language"),
        (["--seat", "12"], "seat 12"),
    ],
)
def test_bad_view_options_are_one_line(args: list[str], says: str) -> None:
    result = invoke("view", str(SAMPLE), *args)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: ") and says in result.stderr


def test_chinese_terminal_view() -> None:
    out = invoke("view", str(SAMPLE), "--language", "zh").stdout
    assert "号投票给" in out and "第1天" in out


def test_folder_index_and_pages(tmp_path: Path) -> None:
    for seed in (1, 2):
        played_transcript(tmp_path, "killer", seed=seed)
    (tmp_path / "out" / "broken.jsonl").write_text("not json\n", "utf-8")
    site = tmp_path / "site"
    result = invoke("view", str(tmp_path / "out"), "--html", str(site))
    assert result.exit_code == 0, result.stderr
    assert "2 games, 1 file skipped" in result.stdout
    index = (site / "index.html").read_text("utf-8")
    pages = re.findall(r'<a href="([^"]+)">', index)
    assert len(pages) == 2 and all((site / p).is_file() for p in pages)
    assert "baseline bot ×" in index and "broken.jsonl" in index
    table = invoke("view", str(tmp_path / "out"))
    assert table.exit_code == 0 and table.stdout.count("killer-s") == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = invoke("view", str(empty), "--html", str(site))
    assert bad.exit_code == 2 and "no readable transcript" in bad.stderr


def test_a_seat_page_has_no_referee_data(tmp_path: Path) -> None:
    page = tmp_path / "seat.html"
    assert invoke("view", str(SAMPLE), "--seat", "2", "--html", str(page)).exit_code == 0
    text = page.read_text("utf-8")
    assert "fake/illegal" not in text and "prompt messages" not in text
    assert "sandbox fork" not in text and 'data-vis="referee"' not in text
    visibility = [e["vis"] for e in lines_of(SAMPLE) if e["type"] == "event"]
    shown = {int(s) for s in re.findall(r'data-seq="(\d+)"', text)}
    assert all(
        v == "public" or (isinstance(v, list) and 2 in v)
        for v in map(visibility.__getitem__, shown)
    )
