"""Every ``--option`` that a help text names exists on that command (a help text
that sends the reader to an absent option is a rough edge of its own)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from sandbox.cli.main import app

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
WIDE = {"COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}  # no wrapped option names


def commands() -> dict[str, Any]:
    """Each command as click sees it (typer's own copy of click: typed loosely)."""
    group: Any = typer.main.get_command(app)
    return dict(group.commands)


def options_of(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        names.update(n for n in [*param.opts, *param.secondary_opts] if n.startswith("--"))
    return names


def named_in(command: Any) -> set[str]:
    """The options the help names: in the command's own text and each parameter's."""
    texts = [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]
    return {name for text in texts for name in OPTION.findall(text)}


@pytest.mark.parametrize("name", sorted(commands()))
def test_help_names_only_options_the_command_has(name: str) -> None:
    command = commands()[name]
    shown = CliRunner().invoke(app, [name, "--help"], env=WIDE)
    assert shown.exit_code == 0, shown.output
    has = options_of(command)
    named = named_in(command) | set(OPTION.findall(shown.output))
    assert named <= has, f"sandbox {name} --help names {sorted(named - has)}"


def test_study_out_overrides_the_files_out() -> None:
    assert "--out" in options_of(commands()["study"])
