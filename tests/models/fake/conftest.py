"""Fixtures for the fake provider's wire tests: the real server on loopback
and litellm, imported as the sandbox imports it (offline, quiet)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.models import remote
from sandbox.models.fake import FakeLLMServer

RETRY_AFTER_S = 7.0


@pytest.fixture
def fake() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=3, hang_s=5.0, retry_after_s=RETRY_AFTER_S) as server:
        yield server


@pytest.fixture(scope="session")
def litellm() -> Any:
    return remote.litellm_module()
