"""Shared fixtures: the toy variant registered once, and toy game files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sandbox.core.variant import _REGISTRY, register
from tests.core.toy import Toy

if "toy" not in _REGISTRY:
    register(Toy())

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
