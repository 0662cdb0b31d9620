"""The validity report under a study's leaderboard (issue 39, item 3;
docs/study-reference.md, "Validity"): the rating without games decided after a rule
failure, and the seat and speaking-order effects with their intervals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.analysis.seating import flag_text


def warn(console: Console, text: str) -> None:
    """A report's warning line (a pooling, separation or seating caveat): the
    text as written, never read as markup."""
    console.print(f"[yellow]warning:[/yellow] {escape(text)}")


def print_validity(console: Console, validity: Mapping[str, Any]) -> None:
    print_anchor(console, validity.get("anchor"))
    failures = validity.get("rule_failures") or {}
    if failures.get("headline"):
        console.print(f"{escape(failures['headline'])}; the report shows the ratings without them")
        table = Table(
            "contestant",
            "Elo, all games",
            "Elo without them",
            "change",
            title="rating without games decided after a rule failure",
        )
        for who, row in failures["by_contestant"].items():
            table.add_row(
                escape(who),
                f"{row['elo_with']} {row['elo_ci95_with']}",
                _text(row["elo_without"]),
                _text(row["change"]),
            )
        console.print(table)
    for setup, seating in (validity.get("seating") or {}).items():
        if not seating:
            continue
        line = flag_text(seating)
        if line:
            warn(console, f"{setup}: {line}")
        table = Table(
            "group",
            "effect",
            "95% CI",
            "seats",
            title=f"seat and speaking order, {setup} (win rate above the side's)",
        )
        for group, row in seating["effects"].items():
            table.add_row(
                escape(group), f"{row['effect']:+.3f}", _text(row["ci95"]), str(row["items"])
            )
        console.print(table)


def print_minimafia(console: Console, found: Mapping[str, Any] | None) -> None:
    """Mini-Mafia's deception, disclosure and detection per contestant, and the
    cross-validated Brier score against its baselines (sandbox.analysis.minimafia)."""
    if not found:
        return
    cv = found.get("cross_validation")
    title = f"Mini-Mafia: logit P(mafia wins) = v·(m − d), {found['games']} games"
    if cv:
        title += (
            f"; {cv['folds']}-fold Brier {cv['brier']['model']} "
            f"({_share(cv['reduction']['coin'])} below a coin, "
            f"{_share(cv['reduction']['base_rate'])} below the base rate)"
        )
    table = Table("contestant", "deception m", "disclosure d", "detection v", title=title)
    for who, row in found["by_contestant"].items():
        table.add_row(
            escape(who),
            *(f"{row[k]} {_text(row[k + '_ci95'])}" for k in ("m", "d", "v")),
        )
    console.print(table)


def print_anchor(console: Console, anchor: Mapping[str, Any] | None) -> None:
    """The Elo pinned to a frozen reference bot (sandbox.analysis.validity.anchor)."""
    if not anchor:
        return
    table = Table("contestant", "Elo [95% CI]", title=escape(anchor["note"]))
    for who, row in anchor["ratings"].items():
        fixed = " (fixed)" if who == anchor["reference"] else f" {_text(row['elo_ci95'])}"
        table.add_row(escape(who), f"{row['elo']}{fixed}")
    console.print(table)


def print_detectability(console: Console, found: Mapping[str, Any] | None) -> None:
    """People's answers to "which seats were played by AI?" (sandbox.analysis.detect)."""
    if not found:
        return
    table = Table(
        "who",
        "AI seats named [95% Wilson]",
        "chance",
        "people named as AI",
        "answers",
        title=f"detectability: {found['question']} ({found['games']} games)",
    )
    rows = [("all people", found["overall"])]
    rows += [(f"person {p}", r) for p, r in found["by_person"].items()]
    for who, row in rows:
        alarms = row["false_alarms"]
        table.add_row(
            escape(who),
            f"{row['named']}/{row['of']} = {_text(row['share'])} {_text(row['ci95'])}",
            _text(row["chance"]),
            f"{alarms['named']}/{alarms['of']}",
            str(row["answers"]),
        )
    for who, row in found["by_model"].items():
        table.add_row(
            escape(f"seats of {who}"),
            f"{row['named']}/{row['of']} = {_text(row['share'])} {_text(row['ci95'])}",
            _text(row["chance"]),
            "",
            "",
        )
    console.print(table)


def _text(value: Any) -> str:
    return "–" if value is None else str(value)


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"
