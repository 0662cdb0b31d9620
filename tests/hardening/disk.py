"""A real small filesystem for disk-fault tests: a size-limited tmpfs mounted
by the test (we run as root), grown or made read-only in the middle of a run.

Where mounting is not permitted the tests skip with the reason, except in CI
(``CI=true``), where a skip would hide that the faults went untested: there
they fail."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


class SmallDisk:
    """A tmpfs of ``size`` bytes at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _mount(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)

    def mount(self, size: str) -> None:
        done = self._mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(self.path))
        if done.returncode != 0:
            why = f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})"
            if os.environ.get("CI") == "true":
                pytest.fail(f"{why}; CI must run the disk-fault tests")
            pytest.skip(why)

    def resize(self, size: str) -> None:
        """More room (space is back), keeping what is on it."""
        done = self._mount("-o", f"remount,size={size}", str(self.path))
        assert done.returncode == 0, done.stderr

    def read_only(self, on: bool = True) -> None:
        done = self._mount("-o", "remount," + ("ro" if on else "rw"), str(self.path))
        assert done.returncode == 0, done.stderr

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True, check=False)
