"""Test-session setup shared by every folder.

The toy variant (tests/core/toy.py) is registered once for the whole session,
before collection, so every test sees the same registry whatever folders run:
it is then held to the same conformance checks (goldens, properties) as the
real games, which also tests the harness itself.

The call gate's provider hold-offs are process-wide (a 429's Retry-After holds
every seat of the process): each test starts without any, since a loopback
server of a later test may get the port, hence the key, of an earlier one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import sandbox.models.gate as gate
from sandbox.games.registry import _REGISTRY, register
from tests.core.toy import Toy

if "toy" not in _REGISTRY:
    register(Toy())


@pytest.fixture(autouse=True)
def _no_inherited_hold_offs() -> Iterator[None]:
    gate.forget_holds()
    yield
    gate.forget_holds()
