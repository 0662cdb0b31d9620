"""The package list in pyproject.toml matches the source tree (fast; the wheel
itself is checked by test_wheel.py). The packages are listed rather than found
because the templates' source, prompts/, ships as sandbox.prompts."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setuptools() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        table: dict[str, object] = tomllib.load(fh)["tool"]["setuptools"]
    return table


def test_every_package_under_sandbox_is_listed_for_the_wheel() -> None:
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "sandbox").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    listed = set(_setuptools()["packages"])  # type: ignore[call-overload]
    assert listed - {"sandbox.prompts"} == on_disk, (
        f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}; "
        f"listed but missing: {sorted(listed - on_disk - {'sandbox.prompts'})}"
    )


def test_the_templates_ship_as_a_resource_package() -> None:
    assert _setuptools()["package-dir"] == {"sandbox.prompts": "prompts"}
    assert (ROOT / "prompts" / "__init__.py").is_file()
    data = _setuptools()["package-data"]
    assert data == {
        "sandbox.report.assets": ["templates/*.html", "static/*.css"],
        "sandbox.viewer.assets": ["templates/*.html", "static/*.js", "static/*.css"],
        "sandbox.web.assets": ["templates/*.html", "static/*.js", "static/*.css"],
        "sandbox.prompts": ["**/*.j2", "*/vocabulary.toml"],
        "sandbox.deduction": ["*.toml", "tables/*.toml"],
        "sandbox.games": ["*/phrases.toml"],
    }
    # each built-in variant's game words are data beside its templates
    # (sandbox.words.vocabulary), shipped by the second pattern
    words = sorted(p.parent.name for p in (ROOT / "prompts").glob("*/vocabulary.toml"))
    assert words == ["four_factions", "killer", "werewolf"]
    # and each built-in bot's phrasebook is data in its variant's folder
    # (sandbox.games.phrasebook.load_phrases), shipped by the last pattern
    books = sorted(p.parent.name for p in (ROOT / "sandbox" / "games").glob("*/phrases.toml"))
    assert books == ["four_factions", "killer", "werewolf"]
