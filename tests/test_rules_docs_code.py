"""The rules docs name code that exists: the docs must match the code.

Each rules doc (docs/rules-four-factions.md, rules-killer.md, rules-werewolf.md,
rules-open-discussion.md) has a rules table whose "Where" cell names, in
backticks, the code that implements each rule; the docs' other paragraphs name
files and event types. When modules are merged or renamed, those names go stale
silently, and a reader (or a prompt author) looks for code that is not there.

The convention every rules doc states in its introduction, and this test checks:

- A doc has a home package: ``sandbox/games/<variant>/`` for a variant's doc,
  ``sandbox/core/`` for the open-discussion doc (its machinery is core).
- In a "Where" cell, ``module.name`` is ``name`` defined in the home package's
  ``module.py`` (``__init__.name``: its ``__init__.py``); ``core.module.name``
  (or ``<variant>.module.name``) names another package's module;
  ``module.Class.member`` a member of a class there. ``Class`` and
  ``Class.member`` (capitalised) are a class (or a constant) defined in the home
  package or core (a core-homed doc speaks for every variant, so there any
  variant too), with that member, inherited members included.
- After the word "event" or "events" in a "Where" cell, the backticked items
  that follow are event types (``ff.proofs``, core's ``talk.graveyard``) or
  event classes. Elsewhere in a doc, a backticked ``<prefix>.<name>`` with an
  event prefix (``ff``, ``killer``, ``werewolf``, ``talk``, ``discussion``,
  ``core``) is an event type, and a capitalised name is checked as in a cell.
- A backticked ``name.py`` (or ``.toml``) is a file of the home package; a
  path such as ``sandbox/core/talk.py`` or ``prompts/killer/<lang>/rules.j2``
  is a file of the repository (a placeholder such as ``<lang>`` fits any name).
- A section comparing with upstream code ("## Compared with …") names upstream
  files, not ours, and is not checked.

The code is read with ``ast``: nothing is imported, so the test stays fast.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = ROOT / "sandbox"
VARIANTS = ("four_factions", "killer", "werewolf")
PACKAGES: dict[str, Path] = {
    "core": SANDBOX / "core",
    **{variant: SANDBOX / "games" / variant for variant in VARIANTS},
}
EVENT_PREFIXES = frozenset({"ff", "killer", "werewolf", "talk", "discussion", "core"})
SKIPPED_SECTION = "## Compared with"

ROW = re.compile(r"^\| (?:FF|KG|WW|OD)-\d+ \|")
TICKED = re.compile(r"`([^`]+)`")
# The word that opens a list of events, just before its first item.
EVENT_WORD = re.compile(r"\bevents?\s*$")
# Between two items of one list: commas, "and", spaces.
LIST_GAP = re.compile(r"^(?:\s|,|\band\b)*$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
FILE = re.compile(r"^[\w<>*./-]+\.(?:py|toml|j2|md)$")
# A placeholder in a path (``<lang>``): any name fits.
PLACEHOLDER = re.compile(r"<\w+>")
# A repository path written without backticks (in running text).
PLAIN_PATH = re.compile(
    r"(?<![\w/.`])((?:sandbox|tests|prompts|configs|docs|bench)/[\w<>*./-]*\.(?:py|toml|j2|md))\b"
)


@dataclass(frozen=True)
class RulesDoc:
    """A rules doc and the package its unqualified module names refer to."""

    path: Path
    home: str

    @property
    def packages(self) -> tuple[str, ...]:
        """Where a class named alone is looked for, the home package first."""
        if self.home == "core":  # the open-discussion doc speaks for every variant
            return ("core", *VARIANTS)
        return (self.home, "core")


DOCS = (
    RulesDoc(ROOT / "docs" / "rules-four-factions.md", "four_factions"),
    RulesDoc(ROOT / "docs" / "rules-killer.md", "killer"),
    RulesDoc(ROOT / "docs" / "rules-werewolf.md", "werewolf"),
    RulesDoc(ROOT / "docs" / "rules-open-discussion.md", "core"),
)


@cache
def module(package: str, name: str) -> ast.Module | None:
    """The parsed ``sandbox/.../<package>/<name>.py``, or None if there is none."""
    path = PACKAGES[package] / f"{name}.py"
    return ast.parse(path.read_text(encoding="utf-8")) if path.is_file() else None


def modules(package: str) -> Iterator[ast.Module]:
    for path in sorted(PACKAGES[package].glob("*.py")):
        tree = module(package, path.stem)
        if tree is not None:
            yield tree


def _targets(node: ast.stmt) -> Iterator[str]:
    """The names a statement defines (imports excluded: a doc names where code lives)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    yield leaf.id
    elif isinstance(node, ast.If | ast.Try):
        for child in [*node.body, *node.orelse]:
            yield from _targets(child)


def top_level(tree: ast.Module) -> dict[str, ast.stmt]:
    """Each name a module defines at its top level → the statement defining it."""
    return {name: node for node in tree.body for name in _targets(node)}


def members(cls: ast.ClassDef) -> set[str]:
    """A class body's names, and the ``self.x`` its methods assign."""
    found = {name for node in cls.body for name in _targets(node)}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            found.add(node.attr)
    return found


def find_defined(name: str, packages: tuple[str, ...]) -> ast.stmt | None:
    """The statement defining ``name`` at the top level of a module of ``packages``."""
    for package in packages:
        for tree in modules(package):
            node = top_level(tree).get(name)
            if node is not None:
                return node
    return None


def find_class(name: str, packages: tuple[str, ...]) -> ast.ClassDef | None:
    node = find_defined(name, packages)
    return node if isinstance(node, ast.ClassDef) and node.name == name else None


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Subscript):  # Rules[State, Config]
        base = base.value
    if isinstance(base, ast.Name):
        return base.id
    return base.attr if isinstance(base, ast.Attribute) else None


def has_member(cls: ast.ClassDef, name: str, packages: tuple[str, ...]) -> bool:
    """``name`` is defined by the class or a base found in ``packages`` or core."""
    seen: set[str] = set()
    todo = [cls]
    while todo:
        current = todo.pop()
        if current.name in seen:
            continue
        seen.add(current.name)
        if name in members(current):
            return True
        for base in current.bases:
            base_name = _base_name(base)
            found = find_class(base_name, (*packages, "core")) if base_name else None
            if found is not None:
                todo.append(found)
    return False


@cache
def event_kinds(package: str) -> frozenset[str]:
    """The event types ``<package>/events.py`` defines (``kind = "ff.proofs"``)."""
    tree = module(package, "events")
    kinds: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.AnnAssign | ast.Assign)
            and "kind" in _targets(node)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            kinds.add(node.value.value)
    return frozenset(kinds)


def check_code(token: str, doc: RulesDoc) -> str | None:
    """Why a "Where" cell's ``token`` names no code, or None when it does."""
    parts = token.split(".")
    if parts[0][0].isupper():  # Class (or a constant such as INFO) or Class.member
        if len(parts) == 1:
            found = find_defined(parts[0], doc.packages) is not None
            return None if found else f"no {parts[0]} in {', '.join(doc.packages)}"
        cls = find_class(parts[0], doc.packages)
        if cls is None:
            return f"no class {parts[0]} in {', '.join(doc.packages)}"
        if not has_member(cls, parts[1], doc.packages):
            return f"class {parts[0]} has no member {parts[1]}"
        return None
    if len(parts) == 1:
        return None  # a bare lowercase word: a decision, a stage, a field
    package = doc.home
    if parts[0] in PACKAGES:  # core.talk, four_factions.state.owed
        package, parts = parts[0], parts[1:]
    tree = module(package, parts[0])
    where = f"{PACKAGES[package].relative_to(ROOT).as_posix()}/{parts[0]}.py"
    if tree is None:
        return f"no module {where}"
    if len(parts) == 1:
        return None
    node = top_level(tree).get(parts[1])
    if node is None:
        return f"{where} defines no {parts[1]}"
    if len(parts) > 2:
        if not isinstance(node, ast.ClassDef):
            return f"{where}: {parts[1]} is no class with members"
        if not has_member(node, parts[2], (package,)):
            return f"{where}: class {parts[1]} has no member {parts[2]}"
    return None


def doc_kinds(doc: RulesDoc) -> frozenset[str]:
    return frozenset().union(*(event_kinds(package) for package in doc.packages))


def check_event(token: str, doc: RulesDoc) -> str | None:
    """Why ``token``, named as an event, is no event type or class of the doc's."""
    if token[0].isupper():
        trees = (module(package, "events") for package in doc.packages)
        if any(isinstance(top_level(tree).get(token), ast.ClassDef) for tree in trees if tree):
            return None
        return f"no event class {token} in the events.py of {', '.join(doc.packages)}"
    if token in doc_kinds(doc):
        return None
    return f"no event type {token!r} in the events.py of {', '.join(doc.packages)}"


def check_file(token: str, doc: RulesDoc) -> str | None:
    """Why a named file is missing: a bare name in the home package, a path in the repo."""
    base = ROOT if "/" in token else PACKAGES[doc.home]
    pattern = PLACEHOLDER.sub("*", token)  # prompts/killer/<lang>/rules.j2: any language
    if any(base.glob(pattern)) if "*" in pattern else (base / pattern).is_file():
        return None
    return f"no file {(base / pattern).relative_to(ROOT).as_posix()}"


def where_problems(cell: str, doc: RulesDoc) -> Iterator[tuple[str, str | None]]:
    """Each backticked item of a "Where" cell → why it is stale (None: it is not)."""
    in_events = False
    end = 0
    for match in TICKED.finditer(cell):
        gap = cell[end : match.start()]
        end = match.end()
        if EVENT_WORD.search(gap):
            in_events = True
        elif not LIST_GAP.match(gap):
            in_events = False
        token = match.group(1)
        # A list of events ends at the first item that is no event type or class.
        in_events = in_events and (token[0].isupper() or token.split(".")[0] in EVENT_PREFIXES)
        if FILE.match(token):
            yield token, check_file(token, doc)
        elif DOTTED.match(token):
            yield token, check_event(token, doc) if in_events else check_code(token, doc)


def other_problems(text: str, doc: RulesDoc) -> Iterator[tuple[str, str | None]]:
    """The files, event types and classes named outside the "Where" cells."""
    for token in TICKED.findall(text):
        if FILE.match(token):
            yield token, check_file(token, doc)
        elif DOTTED.match(token) and token[0].isupper():
            yield token, check_code(token, doc)
        elif DOTTED.match(token) and "." in token and token.split(".")[0] in EVENT_PREFIXES:
            yield token, check_event(token, doc)
    for path in PLAIN_PATH.findall(TICKED.sub("", text)):
        yield path, check_file(path, doc)


def checked_text(text: str) -> str:
    """The doc without its sections on upstream code."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("## "):
            skipping = line.startswith(SKIPPED_SECTION)
        if not skipping:
            kept.append(line)
    return "\n".join(kept)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def rule_rows(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The rules table's rows as (rule ID, "Where" cell), and all the other text
    (other cells and lines) of the checked part of a doc. A rules table is one
    whose header has a "Where" column; other tables with ID rows (rulings) are text."""
    rows: list[tuple[str, str]] = []
    other: list[str] = []
    where: int | None = None
    previous = ""
    for line in checked_text(text).splitlines():
        if not line.startswith("|"):
            where = None
        elif not previous.startswith("|"):  # a table's header
            header = _cells(line)
            where = header.index("Where") if "Where" in header else None
        elif where is not None and ROW.match(line):
            cells = _cells(line)
            rows.append((cells[0], cells[where] if len(cells) == len(header) else ""))
            other += cells[:where] + cells[where + 1 :]
            previous = line
            continue
        other.append(line)
        previous = line
    return rows, other


def stale(text: str, doc: RulesDoc) -> list[str]:
    """Every name in a rules doc's text that no code, file or event type matches."""
    rows, other = rule_rows(text)
    found = [f"{rule}: no Where cell" for rule, cell in rows if not cell]
    for rule, cell in rows:
        found += [f"{rule} `{t}`: {why}" for t, why in where_problems(cell, doc) if why]
    found += [f"`{t}`: {why}" for t, why in other_problems("\n".join(other), doc) if why]
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.path.name)
def test_rules_doc_names_code_that_exists(doc: RulesDoc) -> None:
    problems = stale(doc.path.read_text(encoding="utf-8"), doc)
    assert not problems, f"{doc.path.name} names what is not there:\n" + "\n".join(problems)


def test_the_check_can_fail() -> None:
    """Stale modules, names, members, event types and files are each caught;
    real ones, bare words and upstream sections pass."""
    doc = RulesDoc(ROOT / "docs" / "rules-four-factions.md", "four_factions")
    text = (
        "Code: `state.py`, `info.py`, `sandbox/core/talk.py`, `sandbox/core/gone.py`,\n"
        "`prompts/four_factions/<lang>/rules.j2`, `prompts/<game>/gone.j2`, `INFO`, `GONE`.\n\n"
        "| ID | In our words | Where | Tested by |\n"
        "|----|--------------|-------|-----------|\n"
        "| FF-1 | a rule with `ff.proofs` and `ff.nothing` | `info.SEATS`, `resolve.nothing`, "
        "`state.FFState.graveyard`, `FFState.nothing`, `core.talk`, `core.events.Nothing`, "
        "decision `proofs`, events `ff.proofs`, `ff.nothing`, `GraveyardMessage`, `Gone` "
        "(`resolve.strike`), `FourFactionsConfig.discussion` | `tests/x.py::test_ff1` |\n"
        "\n| Rule | Key | Default |\n|---|---|---|\n| FF-2 | `x` | `info.GONE` |\n"
        "## Compared with upstream\n"
        "`game/engine.py`, `werewolf/config.py`\n"
    )
    assert stale(text, doc) == [
        "FF-1 `info.SEATS`: no module sandbox/games/four_factions/info.py",
        "FF-1 `resolve.nothing`: sandbox/games/four_factions/resolve.py defines no nothing",
        "FF-1 `FFState.nothing`: class FFState has no member nothing",
        "FF-1 `core.events.Nothing`: sandbox/core/events.py defines no Nothing",
        "FF-1 `ff.nothing`: no event type 'ff.nothing' in the events.py of four_factions, core",
        "FF-1 `Gone`: no event class Gone in the events.py of four_factions, core",
        "`info.py`: no file sandbox/games/four_factions/info.py",
        "`sandbox/core/gone.py`: no file sandbox/core/gone.py",
        "`prompts/<game>/gone.j2`: no file prompts/*/gone.j2",
        "`GONE`: no GONE in four_factions, core",
        "`ff.nothing`: no event type 'ff.nothing' in the events.py of four_factions, core",
    ]
