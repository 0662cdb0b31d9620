"""A decision flows one way through the LLM seat's stages: each stage module
imports only the stages before it (read from the source with ast, not run),
so following one decision never returns to a module already left."""

from __future__ import annotations

import ast
from importlib import resources
from pathlib import Path

import pytest

PACKAGE = "sandbox.agents.llm"
# The stages in the order a decision passes them (agent orchestrates them all;
# settings is read by every stage). The prompt package's modules in their own order.
STAGES = (
    "lru",  # the byte-bounded caches every later stage may keep
    "settings",
    "beliefs",
    "prompt.escaping",
    "prompt.templates",
    "prompt.record",
    "prompt.budget",
    "prompt.shared",  # the shared record's layout (a seat's public and secret views)
    "prompt.render",
    "prompt",
    "ladder",
    "grammar",  # the constrained route's grammar, inside the answer format
    "answer_format",
    "parse",
    "call_record",
    "setup",
    "agent",
)


ROOT = Path(str(resources.files(PACKAGE)))


def source(stage: str) -> str:
    path = ROOT.joinpath(*stage.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return path.read_text(encoding="utf-8")


def stage_of(module: str) -> str | None:
    """The most specific stage ``module`` (a dotted name inside the package) is in."""
    matches = [s for s in STAGES if module == s or module.startswith(s + ".")]
    return max(matches, key=len, default=None)


def imported_stages(stage: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source(stage))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            if name.startswith(PACKAGE + "."):
                found.add(stage_of(name.removeprefix(PACKAGE + ".")) or name)
    found.discard(stage)
    return found


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_only_the_stages_before_it(stage: str) -> None:
    earlier = set(STAGES[: STAGES.index(stage)])
    later = imported_stages(stage) - earlier
    assert not later, f"{stage} imports later stages: {sorted(later)}"


def test_every_module_of_the_package_is_a_stage() -> None:
    modules = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in ROOT.rglob("*.py")
    } - {"__init__"}
    assert modules == set(STAGES)
