"""The report's validity section (docs/study-reference.md, "Validity"): the plain
warnings (separation, the rating without hinged games, seating effects whose
interval excludes 0), the seat and speaking-order table, and Mini-Mafia's
deception, disclosure and detection when the games are Mini-Mafia games."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.analysis.seating import flag_text
from sandbox.report.ratings_tables import Rows, ci_text

SEATING_HEAD = ["setup", "group", "effect (win rate above its side's)", "95% CI", "seats", "flag"]
MINIMAFIA_HEAD = ["contestant", "deception m", "disclosure d", "detection v", "games M/D/V"]


def validity_notes(summary: Mapping[str, Any]) -> list[str]:
    """The validity report's sentences, most important first; none when all is well."""
    validity = summary.get("validity") or {}
    notes = []
    if warning := (validity.get("separation") or {}).get("warning"):
        notes.append(warning)
    if headline := (validity.get("rule_failures") or {}).get("headline"):
        notes.append(headline)
    for setup, seating in (validity.get("seating") or {}).items():
        if line := flag_text(seating):
            notes.append(f"{setup}: {line}")
    return notes


def seating_rows(summary: Mapping[str, Any]) -> Rows:
    found = (summary.get("validity") or {}).get("seating") or {}
    return [
        [
            setup,
            group,
            f"{row['effect']:+.3f}",
            ci_text(row["ci95"], 3),
            str(row["items"]),
            "excludes 0" if row["excludes_zero"] else "",
        ]
        for setup, seating in found.items()
        if seating
        for group, row in seating["effects"].items()
    ]


def minimafia_rows(summary: Mapping[str, Any]) -> Rows:
    found = (summary.get("minimafia") or {}).get("by_contestant") or {}
    return [
        [
            who,
            *(f"{row[k]:.3f} {ci_text(row[k + '_ci95'], 3)}" for k in ("m", "d", "v")),
            "/".join(str(row["games"][r]) for r in ("mafioso", "detective", "town")),
        ]
        for who, row in found.items()
    ]


def minimafia_note(summary: Mapping[str, Any]) -> str:
    """The cross-validated Brier scores in one sentence ('' without them)."""
    cv = (summary.get("minimafia") or {}).get("cross_validation")
    if not cv:
        return ""
    brier, cut = cv["brier"], cv["reduction"]
    parts = [
        f"{name.replace('_', ' ')} {brier[name]:.4f}"
        + ("" if cut.get(name) is None else f" ({cut[name]:.1%} reduction)")
        for name in ("coin", "base_rate", "mafioso_rate")
    ]
    return (
        f"{cv['folds']}-fold cross-validated Brier score over {cv['games']} games: "
        f"model {brier['model']:.4f}; baselines: " + ", ".join(parts) + "."
    )


ANCHOR_HEAD = ["contestant", "Elo (anchored)", "95% CI"]
DETECT_HEAD = ["who", "AI seats named", "share", "95% Wilson", "chance", "people named as AI"]


def anchor_rows(summary: Mapping[str, Any]) -> Rows:
    """The Elo pinned to a frozen reference (sandbox.analysis.validity.anchor)."""
    found = (summary.get("validity") or {}).get("anchor") or {}
    return [
        [
            who,
            f"{row['elo']:.1f}",
            "fixed" if who == found["reference"] else ci_text(row["elo_ci95"], 1),
        ]
        for who, row in (found.get("ratings") or {}).items()
    ]


def anchor_note(summary: Mapping[str, Any]) -> str:
    return str(((summary.get("validity") or {}).get("anchor") or {}).get("note") or "")


def detect_rows(summary: Mapping[str, Any]) -> Rows:
    """People's answers to "which seats were played by AI?" (sandbox.analysis.detect):
    every person together, each person, then the seats of each model."""
    found = summary.get("detectability") or {}
    if not found:
        return []
    rows = [("all people", found["overall"])]
    rows += [(f"person {p}", r) for p, r in found["by_person"].items()]
    rows += [(f"seats of {who}", r) for who, r in found["by_model"].items()]
    return [
        [
            who,
            f"{row['named']}/{row['of']}",
            "–" if row["share"] is None else f"{row['share']:.1%}",
            ci_text(row["ci95"], 3),
            "–" if row["chance"] is None else f"{row['chance']:.1%}",
            f"{row['false_alarms']['named']}/{row['false_alarms']['of']}"
            if "false_alarms" in row
            else "",
        ]
        for who, row in rows
    ]


def detect_note(summary: Mapping[str, Any]) -> str:
    found = summary.get("detectability") or {}
    if not found:
        return ""
    overall = found["overall"]
    verdict = "above" if overall["above_chance"] else "not above"
    return (
        f"Asked at the end of {found['games']} blind game(s) \u201c{found['question']}\u201d, "
        f"people named {overall['named']} of {overall['of']} AI seats: "
        f"{verdict} chance ({overall['chance']:.1%}) at 95%."
    )
