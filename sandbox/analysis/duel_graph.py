"""Which deceive and detect ratings compare (issue 39, item 2;
docs/study-reference.md, "Deceive and detect").

A Bradley–Terry fit measures one part against another only through a chain
of duels: the parts linked by duels form a *component*, and the level of one
component against another is not in the data (a single fit over all would
leave it to the iteration's path). So each component is fitted apart, its
mean at 1500, and two ratings compare only within one component. With two
contestants every duel sets one's deceive part against the other's detect
part, so the graph always falls in two and their deceive ratings never
compare; a third contestant meeting both (a baseline bot) links them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.analysis.ratings import bradley_terry

Wins = Mapping[tuple[str, str], float]


def components(wins: Wins) -> list[list[str]]:
    """The parts linked by a chain of duels, each sorted, in the order of
    their first part."""
    link: dict[str, str] = {}

    def root(part: str) -> str:
        while link.setdefault(part, part) != part:
            part = link[part]
        return part

    for a, b in wins:
        link[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for part in sorted(link):
        groups.setdefault(root(part), []).append(part)
    return sorted(groups.values())


def fit_components(wins: Wins) -> dict[str, float]:
    """One Bradley–Terry fit per component (each with its mean at 1500)."""
    fit: dict[str, float] = {}
    for group in components(wins):
        members = set(group)
        fit.update(bradley_terry({pair: n for pair, n in wins.items() if pair[0] in members}))
    return fit


def together(where: Mapping[str, int], parts: Sequence[str]) -> bool:
    """Whether every one of ``parts`` that was rated lies in one component."""
    return len({where[p] for p in parts if p in where}) <= 1


def comparable(deception: Mapping[str, Any], family: str, a: str, b: str, kind: str = "") -> bool:
    """Whether the ``family`` ratings ("deceive" or "detect") of contestants
    ``a`` and ``b`` in a deception summary compare: both rated and in one
    component of the duel graph (of the duels of ``kind`` with a kind)."""
    parts = [(deception.get("by_contestant") or {}).get(n, {}).get(family) for n in (a, b)]
    if kind:
        parts = [(p or {}).get("by_kind", {}).get(kind) for p in parts]
    return bool(parts[0] and parts[1]) and parts[0]["component"] == parts[1]["component"]


def warning(groups: Mapping[str, list[list[str]]]) -> str | None:
    """A plain warning naming the contestants of each family whose ratings
    fall in different components (``groups``: family -> its contestants by
    component); None when every family compares."""
    apart = {family: found for family, found in groups.items() if len(found) > 1}
    if not apart:
        return None
    named = "; ".join(
        f"{family}: " + " | ".join(", ".join(names) for names in found)
        for family, found in apart.items()
    )
    return (
        f"the {' and '.join(apart)} ratings do not all compare: no chain of duels links "
        f"these groups ({named}), so the levels of one group against another are not "
        "measured; with two contestants this is always so (every duel sets one's deceive "
        "part against the other's detect part): add a third contestant, e.g. a baseline bot"
    )


def deception_validity(deception: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The validity report's line on deceive and detect: whether the duel
    graph is connected, its components, and the warning (None without duels)."""
    if not deception:
        return None
    graph = deception.get("graph") or {}
    return {
        "connected": graph.get("connected"),
        "components": len(graph.get("components") or ()),
        "comparable": deception.get("comparable"),
        "split_resamples": graph.get("split_resamples"),
        "split_kept": graph.get("split_kept"),
        "warning": deception.get("warning"),
    }
