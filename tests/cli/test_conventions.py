"""The command line's conventions: ``--version``; ``-h`` beside ``--help`` on
every command; errors as one JSON object under ``--json`` (exit code
unchanged); ``validate`` listing every error; help without type labels;
``view --html`` into an existing folder."""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from sandbox.cli.main import app
from tests.cli.conftest import ToyFile

WIDE = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
TYPE_LABEL = re.compile(r"<(bool|str|int|float|path|file|text|int range|float range)>")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=WIDE)


def command_names() -> list[str]:
    group: Any = typer.main.get_command(app)
    return sorted(group.commands)


def test_version_prints_the_installed_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"sandbox {version('llm-deduction-sandbox')}"


@pytest.mark.parametrize("name", ["", *command_names()])
def test_dash_h_is_help_and_the_help_has_no_type_labels(name: str) -> None:
    command = [name] if name else []
    short, long = invoke(*command, "-h"), invoke(*command, "--help")
    assert short.exit_code == 0 and long.exit_code == 0, short.output
    assert short.stdout == long.stdout and "Usage:" in short.stdout
    assert not TYPE_LABEL.findall(long.stdout), f"type labels in sandbox {name} --help"


def test_a_number_range_is_still_shown() -> None:
    assert "0<=x<=65535" in invoke("fake-llm", "--help").stdout


def test_under_json_an_error_is_one_json_object_with_the_same_exit_code(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.toml")
    plain = invoke("run", missing)
    assert plain.exit_code == 2 and plain.stderr.startswith("error: ")
    for args in (["run", missing, "--json"], ["batch", missing, "--games", "0", "--json"]):
        result = invoke(*args)
        assert result.exit_code == 2 and result.stdout == ""
        (line,) = result.stderr.splitlines()
        error = json.loads(line)
        assert error["exit_code"] == 2 and error["error"]
        assert not error["error"].startswith("error:")


def test_validate_lists_every_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        'variant = "killer"\nseed = "abc"\nbogus = 1\n[run]\nseries = 0\n', encoding="utf-8"
    )
    result = invoke("validate", str(path))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 3 and all(line.startswith(f"error: {path}: ") for line in lines)
    assert {line.split(": ")[2] for line in lines} == {"seed", "bogus", "run.series"}
    assert "more error" not in result.stderr
    rules = tmp_path / "rules.toml"
    rules.write_text('variant = "killer"\n[rules]\nplayers = 3\nnonsense = 1\n', encoding="utf-8")
    lines = invoke("validate", str(rules)).stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == ["rules.players", "rules.nonsense"]


def test_view_html_into_an_existing_folder_names_the_page_after_the_game(
    toy_file: ToyFile, tmp_path: Path
) -> None:
    run = invoke("run", str(toy_file()), "--json")
    assert run.exit_code == 0, run.stderr
    transcript = Path(json.loads(run.stdout)["transcript"])
    pages = tmp_path / "pages"
    pages.mkdir()
    result = invoke("view", str(transcript), "--html", str(pages))
    assert result.exit_code == 0, result.stderr
    page = pages / f"{transcript.stem}.html"
    assert page.is_file() and "<html" in page.read_text(encoding="utf-8").lower()
    assert f"wrote {page}" in result.stdout
