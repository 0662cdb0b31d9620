"""A seat whose key variable is unset stops `sandbox run` before the game starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.cli import app

MISSING = "SANDBOX_TEST_NEVER_SET_KEY"


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
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: seat 2: environment variable {MISSING} (api_key_env) is not set"]
    assert not out.exists() or not any(out.iterdir())
