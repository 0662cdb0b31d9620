"""Test-session setup shared by every folder.

The toy variant (tests/core/toy.py) is registered once for the whole session,
before collection, so every test sees the same registry whatever folders run:
it is then held to the same conformance checks (goldens, properties) as the
real games, which also tests the harness itself.
"""

from __future__ import annotations

from sandbox.games.registry import _REGISTRY, register
from tests.core.toy import Toy

if "toy" not in _REGISTRY:
    register(Toy())
