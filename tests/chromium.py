"""Debian's chromium for the browser tests (driven by Playwright through
``executable_path``; Playwright's own browser download is not reachable here).

``require_chromium()`` skips a test module on a machine without it, except under CI
(.ci/run installs it), where a missing browser is a failure, never a silent skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# As root, headless, and quiet on a closed network (no background connections).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI: {CHROMIUM} is missing (.ci/run installs it)", pytrace=False)
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)
