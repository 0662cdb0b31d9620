"""The examples in the adapters' module docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("pettingzoo")  # the envs extra (installed by make setup)
pytest.importorskip("textarena")


@pytest.mark.parametrize(
    "module",
    ["sandbox.adapters.step", "sandbox.adapters.pettingzoo", "sandbox.adapters.textarena"],
)
def test_the_module_example_runs(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), raise_on_error=False)
    assert result.attempted >= 4 and result.failed == 0
