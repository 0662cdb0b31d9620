"""The rl extra's tests need verifiers and openenv-core (``pip install -e
'.[rl]'``): without them they skip with one line, except under CI=true,
where a missing extra fails them (the one check to change if CI should skip)."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        reason = f"the rl extra is not installed ({err.name} is missing): pip install -e '.[rl]'"
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason, allow_module_level=True)
