"""The packages that read and write recorded games import one way (issue 36).

``transcript`` holds the recorded game and its identity; ``session`` plays and
reads games through it; ``analysis`` reads them; ``batch`` plays many; ``study``
schedules batches and analyses them. Between these packages an import goes
one way only: no package-level cycle, counting every import statement (those
inside functions and under ``if TYPE_CHECKING:`` too, as a lazy or type-only
import is still a circle a reader follows).
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sandbox"
RECORD_PACKAGES = ("analysis", "batch", "session", "study", "transcript")


def module_name(path: Path) -> str:
    """The dotted name of a module under sandbox/ (a package by its __init__)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_packages(tree: ast.Module, module: str, is_package: bool) -> Iterator[str]:
    """The top-level sandbox packages a module names in any import, relative
    imports resolved, ``from sandbox import x`` read as package ``x``."""
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*anchor[: len(anchor) - (node.level - 1)], *filter(None, [base])])
            named = [f"{base}.{alias.name}" for alias in node.names]
            names = named if base == "sandbox" else [base]
        for name in names:
            parts = name.split(".")
            if parts[0] == "sandbox" and len(parts) > 1:
                yield parts[1]


def package_graph() -> dict[str, set[str]]:
    """package -> the other sandbox packages its modules import."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        if module.count(".") < 1 or path.parent == PACKAGE:
            continue  # sandbox's own __init__/__main__: the public face over all
        package = module.split(".")[1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = imported_packages(tree, module, path.name == "__init__.py")
        graph.setdefault(package, set()).update(n for n in names if n != package)
    return graph


def cycle_among(graph: dict[str, set[str]], packages: tuple[str, ...]) -> list[str] | None:
    """A cycle in ``graph`` restricted to ``packages``, or None (the standard
    library's topological sorter finds it)."""
    edges = {p: graph.get(p, set()) & set(packages) for p in packages}
    try:
        tuple(graphlib.TopologicalSorter(edges).static_order())
    except graphlib.CycleError as err:
        return list(reversed(err.args[1]))
    return None


def test_the_cycle_check_finds_a_cycle_and_only_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c", "x"}, "c": {"a"}, "x": {"a"}}
    assert cycle_among(graph, ("a", "b", "c")) == ["a", "b", "c", "a"]
    assert cycle_among(graph, ("a", "b")) is None  # b -> x -> a passes outside


def test_lazy_type_only_and_package_imports_are_counted() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import sandbox.study.run\n"
        "def f():\n    from sandbox.batch import jobs\n"
        "from sandbox import transcript\nfrom . import own\nfrom ..session import play\n"
    )
    found = set(imported_packages(tree, "sandbox.analysis.load", is_package=False))
    assert found == {"study", "batch", "transcript", "analysis", "session"}


def test_the_record_packages_import_one_way() -> None:
    graph = package_graph()
    assert set(RECORD_PACKAGES) <= set(graph)
    found = cycle_among(graph, RECORD_PACKAGES)
    assert found is None, "package cycle: " + " -> ".join(found or [])


def test_analysis_and_batch_do_not_import_study() -> None:
    graph = package_graph()
    assert "study" not in graph["analysis"]
    assert "study" not in graph["batch"]
