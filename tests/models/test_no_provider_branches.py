"""No code outside sandbox/models/ branches on which provider serves a model
(issue 36, item 4): the seat asks its provider (sandbox.models.providers)
what it needs to know, so a new provider never touches the seat.

Flagged outside models/: reading an endpoint's or provider's kind or route
(``endpoint.kind``, ``x.route``, ``endpoint.provider``), comparing anything
named endpoint, provider or route with a provider's name, and ``isinstance``
checks against a provider class."""

from __future__ import annotations

import ast
from pathlib import Path

from sandbox.models.providers import provider_names

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sandbox"
# The names a provider went by before it was a class ("remote": litellm's).
PROVIDER_NAMES = {*provider_names(), "remote"}
PROVIDER_WORDS = ("endpoint", "provider", "route")
PROVIDER_ATTRIBUTES = {"kind", "route", "provider"}


def _mentions_a_provider(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return any(word in text for word in PROVIDER_WORDS)


def _names_a_provider(node: ast.AST) -> bool:
    """A provider's name, or a tuple, list or set holding one."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return any(isinstance(i, ast.Constant) and i.value in PROVIDER_NAMES for i in items)


def _checks_a_provider_class(node: ast.AST) -> bool:
    """``isinstance(x, SomeProvider)``."""
    if not isinstance(node, ast.Call) or getattr(node.func, "id", "") != "isinstance":
        return False
    return len(node.args) == 2 and "Provider" in ast.unparse(node.args[1])


def branches(source: str) -> list[str]:
    """Every provider branch in one module's source, as ``line: code``."""
    found: set[tuple[int, str]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in PROVIDER_ATTRIBUTES:
            owner = ast.unparse(node.value).lower()
            if node.attr == "route" or "endpoint" in owner:
                found.add((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            names = [s for s in sides if _names_a_provider(s)]
            if names and any(_mentions_a_provider(s) for s in sides if s not in names):
                found.add((node.lineno, ast.unparse(node)))
        elif _checks_a_provider_class(node):
            found.add((node.lineno, ast.unparse(node)))
    return [f"{line}: {code}" for line, code in sorted(found)]


def provider_branches(package: Path) -> dict[str, list[str]]:
    """Per module outside ``models/``, its provider branches."""
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if relative.parts[0] == "models":
            continue
        hits = branches(path.read_text(encoding="utf-8"))
        if hits:
            found[str(relative)] = hits
    return found


def test_the_scan_finds_the_branches_the_seat_used_to_make() -> None:
    """Today's shape of the old seat's branches (agent.py, setup.py,
    ladder.py before providers were classes): each is found."""
    old = """
def concurrency_for(endpoint, settings):
    if endpoint.kind != "local":
        return settings.concurrency
def resolve(endpoint):
    if endpoint.route == "openai" or endpoint.model.startswith("openai/"):
        pass
    own_server = endpoint.kind != "remote"
def client(self):
    if self.endpoint.route == "litellm":
        pass
    if provider.name in ("fake", "local"):
        pass
    if isinstance(self.provider, LocalProvider):
        pass
"""
    lines = {int(hit.split(":")[0]) for hit in branches(old)}
    assert lines == {3, 6, 8, 10, 12, 14}
    # an agent's own kind, or a model string, is not a provider branch
    assert branches('if spec.kind == "remote":\n    pass\nx = agent.kind == "llm"\n') == []


def test_no_module_outside_models_branches_on_a_provider() -> None:
    found = provider_branches(PACKAGE)
    assert not found, "branch on a provider outside sandbox/models/ (ask the provider):\n" + (
        "\n".join(f"{module}: {hit}" for module, hits in found.items() for hit in hits)
    )
