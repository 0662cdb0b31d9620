"""Fixtures of the hardening tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hardening.disk import SmallDisk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    """An unmounted mount point; the test mounts it with the size it needs."""
    point = tmp_path / "disk"
    point.mkdir()
    disk = SmallDisk(point)
    try:
        yield disk
    finally:
        disk.unmount()
