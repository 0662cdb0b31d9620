"""Game-file problems that are caught before any game starts: unreadable files,
role selectors and scripted entries that cannot match the variant, seat ranges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.core.errors import ConfigError
from sandbox.session.gamefile import load_config
from tests.cli.conftest import ToyFile


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def one_error_line(result: Any) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    return str(lines[0])


def killer_file(tmp_path: Path, body: str, name: str = "k.toml") -> Path:
    path = tmp_path / name
    text = f'variant = "killer"\nseed = 3\n[run]\nout = "{tmp_path / "out"}"\n{body}'
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe garbage \x00\x81")
    return path


@pytest.fixture
def toy_transcript(toy_file: ToyFile) -> tuple[Path, int]:
    """A finished toy game and a valid fork point in it."""
    result = invoke("run", str(toy_file()), "--json")
    path = Path(json.loads(result.stdout)["transcript"])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    step = next(x["seq"] for x in lines if x.get("kind") == "core.step")
    return path, step + 1


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{f}"],
        ["run", "{f}"],
        ["batch", "{f}", "--games", "1"],
        ["rules", "killer", "--config", "{f}"],
    ],
)
def test_a_file_that_is_not_utf8_is_one_error_line(binary: Path, command: list[str]) -> None:
    line = one_error_line(invoke(*[part.format(f=binary) for part in command]))
    assert str(binary) in line and "not a UTF-8 text file" in line


def test_fork_with_a_binary_config_is_one_error_line(
    binary: Path, toy_transcript: tuple[Path, int]
) -> None:
    path, at = toy_transcript
    line = one_error_line(invoke("fork", str(path), "--at", str(at), "--config", str(binary)))
    assert "not a UTF-8 text file" in line


def test_a_folder_given_as_game_file_is_one_error_line(tmp_path: Path) -> None:
    line = one_error_line(invoke("validate", str(tmp_path)))
    assert "is a folder" in line


def test_a_role_selector_that_matches_no_role_is_refused(tmp_path: Path) -> None:
    typo = killer_file(tmp_path, '[[agent]]\nkind = "random"\nrole = "polce"\n')
    line = one_error_line(invoke("validate", str(typo)))
    assert "agent[1].role: 'polce' matches no role" in line
    assert "killer, police, civilian" in line


@pytest.mark.parametrize("selector", ["wolves", "wolves/elite", "army/regular"])
def test_four_factions_selectors_match_by_prefix(tmp_path: Path, selector: str) -> None:
    path = tmp_path / "ff.toml"
    path.write_text(
        f'variant = "four_factions"\n[[agent]]\nkind = "random"\nrole = "{selector}"\n',
        encoding="utf-8",
    )
    assert load_config(path).file.agent[0].role == selector


@pytest.mark.parametrize("selector", ["wolf", "wolves/", "elite", "wolves/elites"])
def test_four_factions_selectors_that_are_no_prefix_are_refused(
    tmp_path: Path, selector: str
) -> None:
    path = tmp_path / "ff.toml"
    path.write_text(
        f'variant = "four_factions"\n[[agent]]\nkind = "random"\nrole = "{selector}"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="wolves/elite, wolves/regular"):
        load_config(path)


def test_the_seat_range_error_names_the_agent_table(tmp_path: Path) -> None:
    far = killer_file(
        tmp_path, '[[agent]]\nkind = "random"\nseats = [1]\n[[agent]]\nkind="random"\nseats=[13]\n'
    )
    line = one_error_line(invoke("validate", str(far)))
    assert "agent[2].seats: 13 out of range; allowed: 1..12" in line


@pytest.mark.parametrize(
    ("entry", "expect"),
    [
        ('{decision = "vot", target = 3}', "agent[1].decisions[1].decision: 'vot' is not"),
        ('{decision = "vote", targt = 3}', "agent[1].decisions[1]: 'targt' is not an answer"),
        ("{suspct = 3}", "agent[1].decisions[1]: 'suspct' is not an answer field"),
    ],
)
def test_scripted_entries_are_checked_before_play(tmp_path: Path, entry: str, expect: str) -> None:
    script = f'[[agent]]\nkind = "scripted"\nseats = [1]\ndecisions = [{entry}]\n'
    bad = killer_file(tmp_path, script)
    assert expect in one_error_line(invoke("validate", str(bad)))
    one_error_line(invoke("run", str(bad), "--quiet"))
    assert not (tmp_path / "out").exists()  # refused before any transcript is written


def test_good_scripted_entries_pass(tmp_path: Path) -> None:
    good = killer_file(
        tmp_path,
        '[[agent]]\nkind = "scripted"\nseats = [1]\nskip_unlisted = true\n'
        'decisions = [{decision = "vote", target = 2, note = "hm"}, {speech = "hi"}]\n',
    )
    assert invoke("validate", str(good)).exit_code == 0


def test_validate_shows_what_a_researcher_checks(tmp_path: Path) -> None:
    path = killer_file(
        tmp_path,
        "[rules]\nday_limit = 5\nreveal_role_on_death = true\n"
        '[default_agent]\nkind = "llm"\nmodel = "fake/legal-random"\n'
        '[llm]\nlanguage = "zh"\nbelief_probe = true\n'
        '[[agent]]\nkind = "human"\nseats = [3]\ninterface = "browser"\nport = 8765\n',
    )
    result = invoke("validate", str(path))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "default agent: llm (fake/legal-random)" in out
    rules = next(line for line in out.splitlines() if line.startswith("rules: "))
    assert "day_limit=5" in rules and "reveal_role_on_death=true" in rules
    assert "players" not in rules  # a default is not listed
    assert "llm: language=zh, belief_probe=true" in out
    assert "seats 3: human (browser, port 8765)" in out
    assert "warning" not in result.stderr


def test_validate_warns_about_keys_the_kind_ignores(tmp_path: Path) -> None:
    path = killer_file(
        tmp_path,
        '[[agent]]\nkind = "random"\nseats = [1]\nmodel = "fake/legal-random"\n'
        '[[agent]]\nkind = "human"\nseats = [2]\nport = 9000\n',
    )
    result = invoke("validate", str(path))
    assert result.exit_code == 0
    assert "warning: agent[1]: 'model' is ignored by a random seat" in result.stderr
    assert "warning: agent[2]: 'port' is ignored by a human seat" in result.stderr
    assert "llm:" not in result.stdout  # no llm seat, no llm settings


def test_run_warns_about_ignored_keys_too(tmp_path: Path) -> None:
    path = killer_file(tmp_path, '[[agent]]\nkind = "random"\nseats = [1]\ntemperature = 0.5\n')
    result = invoke("run", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    assert "warning: agent[1]: 'temperature' is ignored by a random seat" in result.stderr
    json.loads(result.stdout)  # stdout stays one JSON document


def test_out_must_be_a_folder(toy_file: ToyFile, tmp_path: Path) -> None:
    a_file = tmp_path / "afile"
    a_file.write_text("x", encoding="utf-8")
    line = one_error_line(invoke("run", str(toy_file()), "--out", str(a_file)))
    assert "--out must be a folder" in line
    line = one_error_line(invoke("batch", str(toy_file()), "--games", "1", "--out", str(a_file)))
    assert "--out must be a folder" in line


def test_a_run_stopped_by_a_broken_script_names_its_partial_transcript(
    toy_file: ToyFile, tmp_path: Path
) -> None:
    broken = toy_file('[[agent]]\nkind = "scripted"\nseats = [1]\ndecisions = [{pick = 9}]\n')
    line = one_error_line(invoke("run", str(broken), "--quiet"))
    (partial,) = (tmp_path / "out").glob("*.jsonl")
    assert "scripted decision #1" in line and f"unfinished transcript is {partial}" in line


def test_fork_names_the_differing_rule(toy_transcript: tuple[Path, int], toy_file: ToyFile) -> None:
    path, at = toy_transcript
    other = toy_file("[rules]\nseats = 4\n", name="four.toml")
    line = one_error_line(invoke("fork", str(path), "--at", str(at), "--config", str(other)))
    assert "rules.seats: 4 in the fork config, 3 in the transcript" in line


def test_fork_records_its_source_as_an_absolute_path(
    toy_transcript: tuple[Path, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, at = toy_transcript
    monkeypatch.chdir(path.parent)
    result = invoke("fork", path.name, "--at", str(at), "--out", str(tmp_path / "forks"), "--quiet")
    assert result.exit_code == 0, result.stderr
    (forked,) = (tmp_path / "forks").glob("*.jsonl")
    source = json.loads(forked.read_text().splitlines()[0])["forked_from"]["transcript"]
    assert Path(source).is_absolute() and Path(source) == path.resolve()


def test_quiet_run_without_a_terminal_prints_a_progress_line(toy_file: ToyFile) -> None:
    result = invoke("run", str(toy_file()), "--quiet", "--series", "2")
    assert result.exit_code == 0, result.stderr
    finished = [line for line in result.stderr.splitlines() if line.endswith("· finished")]
    assert len(finished) == 2 and all("events" in line for line in finished)
