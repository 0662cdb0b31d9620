"""Modules small enough to read in one sitting (issue 36, item 7): none of
``sandbox/`` is over 450 lines."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 450


def sizes() -> dict[str, int]:
    return {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted((ROOT / "sandbox").rglob("*.py"))
    }


def test_no_module_is_over_the_limit() -> None:
    found = sizes()
    assert len(found) > 200  # the walk found the package
    over = {name: lines for name, lines in found.items() if lines > LIMIT}
    assert not over, f"modules over {LIMIT} lines: {over}"
