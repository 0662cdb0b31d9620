"""Every relative link in the docs lands (issue 36, item 8): a guide that sends
its reader into a reference, or to the measured figures in benchmarks.md, is
only as good as its links. A link names a file that exists and, after ``#``, an
anchor that file defines: one of its headings as GitHub spells it, or an
explicit ``<a id="...">``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
EXPLICIT = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def doc_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (hyphens
    and underscores kept), each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found = set(EXPLICIT.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links() -> list[str]:
    known: dict[Path, set[str]] = {}
    broken = []
    for doc in doc_files():
        text = CODE_SPAN.sub("", FENCE.sub("", doc.read_text(encoding="utf-8")))
        for target in LINK.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # a web address or mailto: not checked offline
            path, _, anchor = target.partition("#")
            linked = (doc.parent / path).resolve() if path else doc.resolve()
            where = f"{doc.relative_to(ROOT)}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and linked.suffix == ".md":
                if linked not in known:
                    known[linked] = anchors(linked)
                if anchor not in known[linked]:
                    broken.append(f"{where} (no such anchor)")
    return broken


def test_the_slug_is_githubs() -> None:
    assert slug("Persuasion per speech — `speech_persuasion`") == (
        "persuasion-per-speech--speech_persuasion"
    )
    assert slug("## 6. Walk-through".lstrip("# ")) == "6-walk-through"
    assert slug("Cost–rating frontier — `frontier.by_contestant[c]`") == (
        "costrating-frontier--frontierby_contestantc"
    )


def test_every_relative_link_in_the_docs_lands() -> None:
    assert len(doc_files()) > 20  # the walk found the docs
    assert broken_links() == []


def test_the_study_guide_links_into_its_reference() -> None:
    guide = (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    reference = ROOT / "docs" / "study-reference.md"
    linked = {
        target.partition("#")[2]
        for target in LINK.findall(guide)
        if target.startswith("study-reference.md#")
    }
    assert linked, "the guide names no figure of the reference"
    assert linked <= anchors(reference)
