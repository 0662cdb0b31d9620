"""Shared fixtures: toy game files (the toy variant is registered in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

ToyFile = Callable[..., Path]


@pytest.fixture
def toy_file(tmp_path: Path) -> ToyFile:
    """Writes a toy game file; ``body`` is appended verbatim (agents, run settings)."""

    def write(body: str = "", name: str = "toy.toml", seed: int | None = 7) -> Path:
        seed_line = f"seed = {seed}\n" if seed is not None else ""
        text = (
            f'variant = "toy"\n{seed_line}'
            f'[run]\nout = "{tmp_path / "out"}"\n\n'
            f'[default_agent]\nkind = "random"\n\n{body}'
        )
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write
