"""A seat whose key variable is unset stops `sandbox run` before the game starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.cli.main import app

MISSING = "SANDBOX_TEST_NEVER_SET_KEY"


def error_lines(stderr: str) -> list[str]:
    """Under --json each error line is one JSON object: its text as ``error: ...``."""
    return [f"error: {json.loads(line)['error']}" for line in stderr.strip().splitlines()]


def test_run_with_unset_key_variable_is_one_error_line_exit_2_and_no_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MISSING, raising=False)
    out = tmp_path / "out"
    config = tmp_path / "toy.toml"
    config.write_text(
        f'variant = "toy"\nseed = 1\n[run]\nout = "{out}"\n\n'
        '[default_agent]\nkind = "random"\n\n'
        f'[[agent]]\nkind = "llm"\nmodel = "openai/gpt-4o-mini"\n'
        f'api_key_env = "{MISSING}"\nseats = [2]\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(config), "--json"])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = error_lines(result.stderr)
    assert lines == [f"error: seat 2: environment variable {MISSING} (api_key_env) is not set"]
    assert not out.exists() or not any(out.iterdir())


def run_with_agent(tmp_path: Path, agent: str) -> tuple[int, list[str], Path]:
    out = tmp_path / "out"
    config = tmp_path / "toy.toml"
    config.write_text(
        f'variant = "toy"\nseed = 1\n[run]\nout = "{out}"\n\n'
        '[default_agent]\nkind = "random"\n\n'
        f'[[agent]]\nkind = "llm"\n{agent}\nseats = [2]\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(config), "--json"])
    return result.exit_code, error_lines(result.stderr), out


def test_run_with_unknown_fake_policy_is_one_error_line_exit_2(tmp_path: Path) -> None:
    code, lines, out = run_with_agent(tmp_path, 'model = "fake/legal-randon"')
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("error: seat 2: unknown fake policy 'legal-randon'")
    assert "legal-random" in lines[0] and "illegal" in lines[0]
    assert not out.exists() or not any(out.iterdir())


def test_run_without_the_provider_key_names_the_variable_not_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, lines, out = run_with_agent(tmp_path, 'model = "openai/gpt-4o-mini"')
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("error: seat 2: ") and "OPENAI_API_KEY" in lines[0]
    assert not out.exists() or not any(out.iterdir())
