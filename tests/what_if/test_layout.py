"""Where what-if lives (issue 36, item 6): one package, ``sandbox.what_if``, above
the playing, record and measuring layers and below the commands, the report
and the studies. Counted on the static import graph of tests/test_imports.py
(lazy and type-only imports included)."""

from __future__ import annotations

from tests.test_imports import MODULES, import_graph

# The packages that may import sandbox.what_if; the root is the public face
# (``from sandbox import whatif``), imported lazily by name.
ABOVE = ("sandbox.cli", "sandbox.report", "sandbox.study")


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_what_if_is_one_package() -> None:
    assert {"sandbox.what_if.intervention", "sandbox.what_if.branches"} <= set(MODULES)
    assert {"sandbox.what_if.counterfactual", "sandbox.what_if.ablation"} <= set(MODULES)
    for gone in ("session.whatif", "session.intervention", "study.counterfactual"):
        assert f"sandbox.{gone}" not in MODULES
    assert "sandbox.study.ablation" not in MODULES


def test_only_the_layers_above_import_what_if() -> None:
    graph = import_graph()
    users = {
        module
        for module, imported in graph.items()
        if any(_package(n) == "sandbox.what_if" for n in imported)
        and _package(module) != "sandbox.what_if"
    }
    assert users, "nothing imports sandbox.what_if: the graph is not read"
    wrong = {m for m in users if m != "sandbox" and _package(m) not in ABOVE}
    assert not wrong, f"below sandbox.what_if, these import it: {sorted(wrong)}"


def test_what_if_imports_no_layer_above_it() -> None:
    graph = import_graph()
    found = {
        (module, name)
        for module, imported in graph.items()
        if _package(module) == "sandbox.what_if"
        for name in imported
        if _package(name) in ABOVE
    }
    assert not found, sorted(found)
