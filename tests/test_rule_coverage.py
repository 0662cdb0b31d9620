"""Every rule of the project's rules docs (docs/rules-killer.md, docs/rules-four-
factions.md: the KG and FF families; docs/rules-werewolf.md: WW; docs/rules-open-
discussion.md: OD) is cited by a test, and every "Tested by" cell of those docs
names tests that exist and cite that rule. A rule not implemented yet says so:
its cell reads "pending: <what will implement it>"; it may stand uncited, and no
test may cite it until its row names the tests (then it is an ordinary rule).

The docs restate each rule in the project's own words, so the suite needs
nothing outside the repository. They are written from the rules references
(RULES-SPEC.md, RULES-WEREWOLF.md, RULES-OPEN-DISCUSSION.md) kept beside the
team's checkouts; where a copy is found there, one more test checks that the
docs still list every ID it defines (skipped in a clone of this repository alone).

A test cites a rule by its name (``test_kg5_...``), by a ``@pytest.mark.rule("KG-5")``
marker (on the test, its class or the module's ``pytestmark``) or by its own
docstring; a comment or a module docstring does not count, since it names no test.
The test files are read with ``ast``: nothing is imported or run.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# The rules doc of each rule family: the list of rules the suite checks.
DOCS = {
    "KG": ROOT / "docs" / "rules-killer.md",
    "FF": ROOT / "docs" / "rules-four-factions.md",
    "WW": ROOT / "docs" / "rules-werewolf.md",
    "OD": ROOT / "docs" / "rules-open-discussion.md",
}
# The references the docs are written from, with the families each defines.
# Not part of the repository: only test_rules_docs_list_every_reference_rule
# reads them, when a copy is found beside the checkout.
REFERENCES = {
    "RULES-SPEC.md": ("KG", "FF"),
    "RULES-WEREWOLF.md": ("WW",),
    "RULES-OPEN-DISCUSSION.md": ("OD",),
}
MARKER = "rule"

FAMILIES = "|".join(DOCS)
RULE_ID = re.compile(rf"\b({FAMILIES})-(\d+)\b")
# A rule as a reference defines it: a list item that opens with the bold ID.
SPEC_ITEM = re.compile(rf"^- \*\*((?:{FAMILIES})-\d+)\b", re.MULTILINE)
# The same ID inside a test's name: kg5, ff_21, ww7 (names cannot hold a hyphen).
NAME_ID = re.compile(rf"(?:^|_)({FAMILIES.lower()})_?(\d+)(?=_|$)")
# A rule as a doc restates it: a table row that opens with the ID.
DOC_ID = re.compile(rf"^\| ((?:{FAMILIES})-\d+) \|", re.MULTILINE)
DOC_ROW = re.compile(rf"^\| ((?:{FAMILIES})-\d+) \|.*\|([^|]*)\|\s*$", re.MULTILINE)
DOC_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
# A rule not implemented yet: its "Tested by" cell (the row's last) opens with "pending".
DOC_PENDING = re.compile(rf"^\| ((?:{FAMILIES})-\d+) \|.*\|\s*pending\b[^|]*\|\s*$", re.MULTILINE)


def doc_ids(family: str) -> list[str]:
    """The IDs of ``family`` its rules doc restates, each once, in order."""
    found = DOC_ID.findall(DOCS[family].read_text(encoding="utf-8"))
    return list(dict.fromkeys(rule for rule in found if rule.startswith(f"{family}-")))


def pending_in(text: str) -> list[str]:
    """The IDs of the rows of a rules doc whose "Tested by" cell says pending."""
    return DOC_PENDING.findall(text)


@pytest.fixture(scope="module")
def pending() -> set[str]:
    """Every rule a rules doc marks pending (no implementation yet)."""
    return {rule for path in DOCS.values() for rule in pending_in(path.read_text("utf-8"))}


@pytest.fixture(scope="module")
def spec_ids() -> list[str]:
    """Every rule ID the project's rules docs restate."""
    return [rule for family in DOCS for rule in doc_ids(family)]


@pytest.mark.parametrize("family", sorted(DOCS))
def test_rules_doc_numbers_its_family_without_a_gap(family: str) -> None:
    """A family's rules are numbered 1..N: a row lost from a doc shows as a gap."""
    numbers = sorted(int(rule.split("-")[1]) for rule in doc_ids(family))
    assert numbers, f"{DOCS[family].name} restates no {family} rule"
    assert numbers == list(range(1, len(numbers) + 1)), f"{family}: {numbers}"


def reference_path(name: str) -> Path | None:
    """The reference ``name`` in a ``shared/`` folder beside the checkout or
    one of its parent folders (a worktree kept inside the project), if any."""
    for folder in ROOT.parents:
        candidate = folder / "shared" / name
        if candidate.is_file():
            return candidate
    return None


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_rules_docs_list_every_reference_rule(name: str, spec_ids: list[str]) -> None:
    """Where the team's reference is at hand, the docs restate each of its rules."""
    path = reference_path(name)
    if path is None:
        pytest.skip(f"{name} is not beside this checkout (the docs carry its rules)")
    found = SPEC_ITEM.findall(path.read_text(encoding="utf-8"))
    assert found, f"no rule IDs found in {path}"
    strays = [rule for rule in found if rule.split("-")[0] not in REFERENCES[name]]
    assert not strays, f"{path.name} defines IDs of another reference's families: {strays}"
    missing = [rule for rule in found if rule not in spec_ids]
    assert not missing, f"rules of {path.name} no rules doc restates: {missing}"


def _ids_in_text(text: str | None) -> set[str]:
    return {f"{family}-{number}" for family, number in RULE_ID.findall(text or "")}


def _marker_ids(node: ast.expr) -> set[str]:
    """IDs given to ``pytest.mark.rule(...)`` in a decorator or ``pytestmark`` value."""
    if isinstance(node, ast.List | ast.Tuple):
        return set().union(*(_marker_ids(item) for item in node.elts))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == MARKER
        and ast.unparse(node.func.value) == "pytest.mark"
    ):
        return {
            arg.value
            for arg in node.args
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
        }
    return set()


def _name_ids(name: str) -> set[str]:
    return {f"{family.upper()}-{number}" for family, number in NAME_ID.findall(name)}


Test = ast.FunctionDef | ast.AsyncFunctionDef


def _tests(tree: ast.Module) -> Iterator[tuple[str, Test, set[str]]]:
    """Each test of a module with the IDs inherited from its class and module markers."""
    module_marks: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            module_marks |= _marker_ids(node.value)
    for node in tree.body:
        if isinstance(node, Test) and node.name.startswith("test"):
            yield node.name, node, module_marks
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            inherited = module_marks.union(*(_marker_ids(d) for d in node.decorator_list))
            inherited |= _ids_in_text(ast.get_docstring(node))
            for item in node.body:
                if isinstance(item, Test) and item.name.startswith("test"):
                    yield f"{node.name}::{item.name}", item, inherited


def cited_in(tree: ast.Module) -> dict[str, set[str]]:
    """Each test of a parsed module → the rule IDs it cites."""
    cited: dict[str, set[str]] = {}
    for name, node, inherited in _tests(tree):
        ids = set(inherited) | _name_ids(node.name) | _ids_in_text(ast.get_docstring(node))
        for decorator in node.decorator_list:
            ids |= _marker_ids(decorator)
        cited[name] = ids
    return cited


def cited_by_test() -> dict[str, set[str]]:
    """``tests/path.py::name`` → the rule IDs that test cites, over every test file."""
    cited: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        where = path.relative_to(ROOT).as_posix()
        for name, ids in cited_in(ast.parse(path.read_text(encoding="utf-8"))).items():
            cited[f"{where}::{name}"] = ids
    return cited


@pytest.fixture(scope="module")
def cited() -> dict[str, set[str]]:
    return cited_by_test()


def citing_tests(cited: dict[str, set[str]]) -> dict[str, list[str]]:
    """Rule ID → the tests that cite it."""
    tests_of: dict[str, list[str]] = defaultdict(list)
    for test, ids in cited.items():
        for rule in ids:
            tests_of[rule].append(test)
    return tests_of


def test_every_spec_rule_is_cited_by_a_test(
    spec_ids: list[str], cited: dict[str, set[str]], pending: set[str]
) -> None:
    tests_of = citing_tests(cited)
    uncited = [rule for rule in spec_ids if not tests_of[rule] and rule not in pending]
    assert not uncited, f"rule IDs no test cites (name, @pytest.mark.rule or docstring): {uncited}"


def test_a_pending_rule_is_cited_by_no_test(pending: set[str], cited: dict[str, set[str]]) -> None:
    """Pending means not implemented: once a test cites the rule, its doc row
    must name that test instead of saying pending."""
    tests_of = citing_tests(cited)
    stale = {rule: tests_of[rule] for rule in sorted(pending) if tests_of[rule]}
    assert not stale, f"rules marked pending in a rules doc but cited by tests: {stale}"


def test_markers_cite_only_rules_of_the_spec(
    spec_ids: list[str], cited: dict[str, set[str]]
) -> None:
    """A typo in a marker (an ID past the last rule) would otherwise cover nothing."""
    ours = {test: {i for i in ids if RULE_ID.fullmatch(i)} for test, ids in cited.items()}
    unknown = {
        test: sorted(ids - set(spec_ids)) for test, ids in ours.items() if ids - set(spec_ids)
    }
    assert not unknown, f"tests citing IDs the spec does not define: {unknown}"


def doc_rows(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Rule ID → the tests its "Tested by" cell (the row's last cell) names."""
    return {
        rule: DOC_REF.findall(cell)
        for rule, cell in DOC_ROW.findall(path.read_text(encoding="utf-8"))
        if DOC_REF.search(cell)
    }


@pytest.mark.parametrize("family", sorted(DOCS))
def test_rules_doc_names_a_citing_test_for_every_rule(
    family: str, spec_ids: list[str], cited: dict[str, set[str]], pending: set[str]
) -> None:
    rows = doc_rows(DOCS[family])
    ours = [rule for rule in spec_ids if rule.startswith(f"{family}-") and rule not in pending]
    missing = [rule for rule in ours if rule not in rows]
    assert not missing, f"{DOCS[family].name}: rules without a 'Tested by' entry: {missing}"
    wrong = [
        f"{rule}: {path}::{name}"
        for rule, refs in rows.items()
        for path, name in refs
        if rule not in cited.get(f"{path}::{name}", set())
    ]
    assert not wrong, f"{DOCS[family].name}: listed tests that are missing or do not cite: {wrong}"


def test_the_coverage_check_can_fail() -> None:
    """The three ways of citing are read, and nothing else is."""
    source = '''
import pytest
pytestmark = pytest.mark.rule("FF-1")
# FF-2 in a comment does not count
@pytest.mark.rule("KG-3", "KG-4")
def test_marked() -> None:
    """Also KG-9 by docstring."""
def test_kg5_by_name() -> None:
    assert "KG-6" in ""
def helper_kg7() -> None:
    """KG-8 outside a test."""
@pytest.mark.rule("FF-4")
class TestGroup:
    """Every test here: KG-1."""
    def test_inherits(self) -> None:
        pass
'''
    assert cited_in(ast.parse(source)) == {
        "test_marked": {"FF-1", "KG-3", "KG-4", "KG-9"},
        "test_kg5_by_name": {"FF-1", "KG-5"},
        "TestGroup::test_inherits": {"FF-1", "FF-4", "KG-1"},
    }
    assert _name_ids("test_ff_21_x") == {"FF-21"} and _name_ids("test_kg55") == {"KG-55"}
    assert _name_ids("test_background") == set() and _name_ids("test_kg") == set()
    rows = (
        "| OD-3 | a rule | `x` | pending: the wiring |\n"
        "| OD-4 | a rule | `x` | `tests/a.py::test_od4` |\n"
        "| OD-5 | a rule, pending one day | `x` | `tests/a.py::test_od5` |\n"
    )
    assert pending_in(rows) == ["OD-3"]
