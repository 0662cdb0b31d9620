"""The command line's layout (sandbox/cli/, one module per command family): no
module of it names a variant, and ``rules`` lists the variants installed now."""

from __future__ import annotations

import ast
from pathlib import Path

from typer.testing import CliRunner

from sandbox.cli.main import app
from sandbox.games.registry import variant_names

CLI = Path(__file__).resolve().parents[2] / "sandbox" / "cli"


def test_no_cli_module_names_a_variant() -> None:
    names = set(variant_names())
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        strings = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        words = {word for text in strings for word in text.replace(",", " ").split()}
        assert not names & words, f"{path.name} names {sorted(names & words)}"


def test_rules_help_lists_the_installed_variants() -> None:
    result = CliRunner().invoke(app, ["rules", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in variant_names():
        assert name in result.stdout
