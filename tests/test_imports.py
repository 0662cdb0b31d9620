"""Imports: (a) every module of ``sandbox`` imports on its own, in a fresh
interpreter (no help from modules another test imported first); (b) the static
import graph of sandbox/ has no cycle.

(b) counts every import statement, also those inside functions (a lazy import
only hides a cycle until that function runs) and ``importlib.import_module``
calls with a literal name, and those under ``if TYPE_CHECKING:`` too: a
type-only import back into a module's importer is still a circle a reader has
to follow (name what is needed with a Protocol instead).
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sandbox"
WORKERS = 4  # fresh interpreters at once (each mostly waits on the disk)


def module_files() -> dict[str, Path]:
    """Every module under sandbox/, by dotted name (a package by its __init__)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = module_files()
# Modules of the optional rl extra, which make setup does not install: each is
# imported where its library is (without it, it raises an ImportError naming
# the extra, as tests/adapters/test_verifiers_env.py's skip says).
NEEDS = {
    "sandbox.adapters.rl.verifiers_env": "verifiers",
    "sandbox.adapters.rl.openenv_env": "openenv",
}


def importable(module: str) -> bool:
    library = NEEDS.get(module)
    return library is None or importlib.util.find_spec(library) is not None


def _import_alone(module: str) -> tuple[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    return module, (done.stderr.strip().splitlines() or ["?"])[-1] if done.returncode else None


# Not a timing assertion: 260-odd fresh interpreters, some importing inspect_ai,
# litellm or ray, take minutes on two busy cores; the suite's 300 s guard is per test.
@pytest.mark.timeout(900)
def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    with ThreadPoolExecutor(WORKERS) as pool:
        results = dict(pool.map(_import_alone, filter(importable, MODULES)))
    failed = {m: error for m, error in results.items() if error is not None}
    assert len(results) == len([m for m in MODULES if importable(m)]) > 40
    assert not failed, failed


# ---------------------------------------------------------------- the graph


def imported_names(tree: ast.Module, module: str, is_package: bool) -> Iterator[str]:
    """Dotted names a module imports (absolute; relative ones resolved),
    for a ``from X import y`` both X and X.y (y may be a submodule)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and _named_import(node) is not None:
            yield str(_named_import(node))


def _named_import(call: ast.Call) -> str | None:
    """The module of ``importlib.import_module("literal")`` (a computed name
    cannot be followed statically)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name != "import_module" or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def import_graph() -> dict[str, set[str]]:
    """module -> the sandbox modules it imports (itself excluded)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = imported_names(tree, module, path.name == "__init__.py")
        graph[module] = {n for n in names if n in MODULES and n != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_a_cycle(graph, set(group)) for group in groups]


def _a_cycle(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, within the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(group)}")


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_relative_and_lazy_imports_are_in_the_graph() -> None:
    tree = ast.parse(
        "from . import b\nfrom ..c import d\nif TYPE_CHECKING:\n    import e\n"
        "def f():\n    import sandbox.g\n"
        "def h():\n    return importlib.import_module('sandbox.h')\n"
    )
    names = set(imported_names(tree, "sandbox.p.a", is_package=False))
    assert {"sandbox.p.b", "sandbox.c", "sandbox.c.d", "sandbox.g", "sandbox.h"} <= names
    assert "e" in names  # a type-only import is a circle too


def test_the_import_graph_of_sandbox_has_no_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


# ------------------------------------------------------- the package graph

# The layers of sandbox/, lowest first (docs/architecture.md): a package
# imports only packages of lower layers, and neighbours only in the two top
# layers (the display and research packages, the entry points), never back
# up. Lazy and type-only imports count, as above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),  # the referee and the seat contract
    # the one words renderer (takes the Variant object); beliefs and speech reading,
    # which the variants' reference bots use (issue 37)
    ("words", "deduction"),
    ("games", "models"),  # variants; model providers
    ("agents",),  # the seats
    ("transcript",),
    ("session",),
    # display | research
    ("viewer", "web", "analysis", "study", "batch", "report", "what_if"),
    ("cli", "adapters", "testing"),  # the entry points and kits
)
NEIGHBOURS_FROM = len(LAYERS) - 2  # layers from here on may import within the layer

# Pairs of packages allowed to import each other: none (issue 36).
KNOWN_PAIRS: frozenset[frozenset[str]] = frozenset()

# The seats know a variant only through the core's contract (the view's
# Variant object); its words come from sandbox.words, which takes that object.
SEATS_READING_GAMES: set[tuple[str, str]] = set()


def package_of(module: str) -> str | None:
    """The package of sandbox/ a module belongs to (None: sandbox's own top)."""
    parts = module.split(".")
    if len(parts) >= 3 or (len(parts) == 2 and MODULES[module].name == "__init__.py"):
        return parts[1]
    return None


def package_graph(
    graph: dict[str, set[str]], package: Callable[[str], str | None] = package_of
) -> dict[str, set[str]]:
    """package -> the other packages its modules import."""
    folded: dict[str, set[str]] = {}
    for module, imported in graph.items():
        source = package(module)
        if source is None:
            continue
        targets = {package(m) for m in imported} - {source, None}
        folded.setdefault(source, set()).update(t for t in targets if t is not None)
    return folded


def test_the_package_graph_folds_modules_into_their_packages() -> None:
    modules = {"s.a.x": {"s.b.y"}, "s.b.y": {"s.b.z"}, "s.b.z": {"s.a.w"}, "s.a.w": set()}
    folded = package_graph(modules, lambda m: m.split(".")[1])
    assert folded == {"a": {"b"}, "b": {"a"}}
    assert cycles(folded) == [["a", "b", "a"]]  # no module cycle, yet a package cycle


def test_no_two_packages_of_sandbox_import_each_other() -> None:
    graph = package_graph(import_graph())
    for pair in KNOWN_PAIRS:
        first, second = sorted(pair)
        graph.get(first, set()).discard(second)
        graph.get(second, set()).discard(first)
    found = cycles({p: graph.get(p, set()) for p in graph})
    assert not found, "package cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_every_package_is_in_a_layer_and_imports_only_downward() -> None:
    rank = {package: i for i, layer in enumerate(LAYERS) for package in layer}
    graph = package_graph(import_graph())
    assert set(graph) <= set(rank), f"place these packages in LAYERS: {set(graph) - set(rank)}"
    upward = sorted(
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if rank[target] > rank[source]
        or (rank[target] == rank[source] and rank[source] < NEIGHBOURS_FROM)
    )
    assert not upward, f"imports against the layers: {upward}"


def test_seats_import_nothing_of_the_games_but_their_words() -> None:
    graph = import_graph()
    found = {
        (module, target)
        for module, imported in graph.items()
        if module.startswith("sandbox.agents.")
        for target in imported
        if target == "sandbox.games" or target.startswith("sandbox.games.")
    }
    assert found <= SEATS_READING_GAMES, sorted(found - SEATS_READING_GAMES)
