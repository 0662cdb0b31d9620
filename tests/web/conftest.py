"""A web run per test, stopped at the end (its server really listens on loopback)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox.web.run import WebRun
from sandbox.web.seat import HumanBrowserAgent
from tests.web.helpers import quiet


@pytest.fixture
def web() -> Iterator[WebRun]:
    run = WebRun(announce=quiet)
    yield run
    run.stop()


@pytest.fixture
def seat2(web: WebRun) -> HumanBrowserAgent:
    return HumanBrowserAgent(2, web.hub())
