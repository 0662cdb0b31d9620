"""Test-session setup shared by every folder.

The toy variant (tests/core/toy.py) is registered once for the whole session,
before collection, so every test sees the same registry whatever folders run:
it is then held to the same conformance checks (goldens, properties) as the
real games, which also tests the harness itself.

The call gate's provider hold-offs are process-wide (a 429's Retry-After holds
every seat of the process): each test starts without any, since a loopback
server of a later test may get the port, hence the key, of an earlier one.

A suite started in the background by a shell without job control (``cmd &`` in
a script, ``nohup``) inherits SIGINT ignored, and an ignored signal stays
ignored across exec: every command the Ctrl-C tests start would then shrug off
the Ctrl-C they send. The session puts Python's own handler back, so those
commands start with SIGINT at its default, as from a terminal.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

import sandbox.models.gate as gate
from sandbox.games.registry import _REGISTRY, register
from tests.core.toy import Toy

if "toy" not in _REGISTRY:
    register(Toy())

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _no_inherited_hold_offs() -> Iterator[None]:
    gate.forget_holds()
    yield
    gate.forget_holds()
