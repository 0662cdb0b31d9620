"""A variant is one folder: no module of sandbox/ outside ``sandbox/games/<v>/``
names a variant in code (issue 18). The rest of sandbox/ reaches a variant only
through the ``Variant`` contract and the registry.

Static (the AST of every module, not a text search), so comments and docstrings
may still give examples. What counts as naming a variant is taken from the
registry's own ``VariantInfo``s, so a variant added later is covered too:

- a string constant or an identifier containing, as a word, a variant's name,
  its event-kind prefix (``ff`` of ``ff.duel``), or one of its role, side or
  faction labels (plurals included: ``killers``);
- an import of ``sandbox.games.<v>`` (or anything under it) from outside that folder.
"""

from __future__ import annotations

import ast
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

from sandbox.core.variant import Variant
from sandbox.games.registry import get_variant, variant_names

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sandbox"
GAMES = PACKAGE / "games"


def variant_folders() -> dict[str, Path]:
    """Each built-in variant's folder (the subpackages of sandbox.games)."""
    return {m.name: GAMES / m.name for m in pkgutil.iter_modules([str(GAMES)]) if m.ispkg}


def variants() -> list[Variant]:
    """The registered variants, but not the test session's own (tests/core/toy.py
    is registered by hand for the whole session)."""
    found = [get_variant(name) for name in variant_names()]
    return [v for v in found if not type(v).__module__.startswith("tests.")]


def words_of(variant: Variant) -> set[str]:
    """What names ``variant``: its name (also spaced or run together), its
    event-kind prefix, its role labels and its sides."""
    info = variant.info
    name = info.name.lower()
    found = {name, name.replace("_", " "), name.replace("_", ""), info.prefix.rstrip(".")}
    found |= {label.lower() for label in (*info.roles, *info.sides, *info.seated_with.values())}
    return {word for word in found if word}


def pattern_for(words: set[str]) -> re.Pattern[str]:
    """Any of ``words`` as a whole word (letters and digits around it break a
    match; ``_``, ``.`` and ``/`` do not), with an optional plural ending."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9])(?:{alternatives})(?:e?s)?(?![a-z0-9])")


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that document (a docstring, or any string
    standing alone as a statement, such as an attribute's docstring)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def identifiers(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
        yield str(node.arg)
    elif isinstance(node, ast.alias):
        yield node.asname or node.name.rpartition(".")[2]
    elif isinstance(node, ast.Global | ast.Nonlocal):
        yield from node.names


def imported(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        yield node.module
        yield from (f"{node.module}.{alias.name}" for alias in node.names)


def offences(path: Path, pattern: re.Pattern[str], folders: dict[str, Path]) -> Iterator[str]:
    """``file:line: what`` for each place ``path`` names a variant."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = docstrings(tree)
    where = path.relative_to(ROOT).as_posix()
    packages = tuple(f"sandbox.games.{name}" for name in folders)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skipped
            and (hit := pattern.search(node.value.lower()))
        ):
            yield f"{where}:{line}: string {node.value[:60]!r} names {hit.group()!r}"
        for name in identifiers(node):
            if hit := pattern.search(name.lower()):
                yield f"{where}:{line}: identifier {name!r} names {hit.group()!r}"
        for module in imported(node):
            if module in packages or module.startswith(tuple(f"{p}." for p in packages)):
                yield f"{where}:{line}: imports {module}"


def outside_the_variants() -> list[Path]:
    inside = tuple(variant_folders().values())
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in path.parts and not any(path.is_relative_to(f) for f in inside)
    ]


def _line_number(hit: str) -> tuple[int, str]:
    line = hit.split(":", 2)[1]
    return (int(line) if line.isdigit() else 0, hit)


def all_offences() -> dict[str, list[str]]:
    pattern = pattern_for(set().union(*(words_of(v) for v in variants())))
    folders = variant_folders()
    found: dict[str, list[str]] = {}
    for path in outside_the_variants():
        hits = sorted(set(offences(path, pattern, folders)), key=_line_number)
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    return found


def test_the_check_sees_every_variant_and_names_its_words() -> None:
    names = {v.name for v in variants()}
    assert set(variant_folders()) <= names, "a folder of sandbox/games holds no registered variant"
    pattern = pattern_for(set().union(*(words_of(v) for v in variants())))
    for variant in variants():
        for word in words_of(variant):
            assert pattern.search(f"x = {word}.thing"), word
    # whole words only: "diff" or "offset" do not name a variant whose prefix is "ff"
    assert not pattern_for({"ff"}).search("diff offset buffer")
    assert pattern_for({"ff"}).search("_ff_teammates") and pattern_for({"ff"}).search("ff.duel")
    assert pattern_for({"killer"}).search("killers_eliminated")


def test_no_module_outside_a_variant_folder_names_a_variant() -> None:
    found = all_offences()
    listed = "\n".join(hit for hits in found.values() for hit in hits)
    assert not found, f"variant names outside sandbox/games/<v>/:\n{listed}"


def test_no_variant_folder_imports_another_variant() -> None:
    folders = variant_folders()
    found = []
    for name, folder in folders.items():
        others = tuple(f"sandbox.games.{other}" for other in folders if other != name)
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                for module in imported(node):
                    if module in others or module.startswith(tuple(f"{o}." for o in others)):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {module}")
    assert not found, "\n".join(found)
