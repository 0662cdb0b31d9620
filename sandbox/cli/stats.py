"""The ``stats`` command, and the tables of figures it prints (``batch`` prints
the same ones for the games it played): win rates with their confidence
intervals by role and by contestant, reasons, fallbacks, usage, belief probes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.analysis.stats import gather, summarise
from sandbox.cli.errors import fail
from sandbox.cli.validity import warn


def stats(
    paths: Annotated[list[Path], typer.Argument(help="transcript files or folders")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    seed: Annotated[int, typer.Option(help="bootstrap seed")] = BOOTSTRAP_SEED,
    include_aborted: Annotated[
        bool, typer.Option(help="count aborted games (all draw) in the win/lose/draw rates")
    ] = False,
    beliefs: Annotated[
        bool, typer.Option("--beliefs", help="accuracy of the LLM seats' belief probes")
    ] = False,
    by_setup: Annotated[
        bool, typer.Option("--by-setup", help="one table per game file name and player count")
    ] = False,
) -> None:
    """Win rates (with 95% CIs) by role and by contestant/model, reasons, fallbacks and
    usage over many games; each game counted once."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"{missing[0]}: no such file or folder")
    per_variant, skipped = gather(paths, beliefs, by_setup)
    if not per_variant:
        _nothing_read(paths, skipped)
    summary = summarise(per_variant, seed, include_aborted, beliefs)
    if as_json:
        obj = {"variants": summary, "skipped": [{"path": p, "why": w} for p, w in skipped]}
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    console = Console(highlight=False)
    for name, figures in summary.items():
        print_variant_stats(console, name, figures)
        if beliefs:
            print_belief_stats(console, figures["beliefs"])
    for path, why in skipped:
        console.print(f"[yellow]skipped[/yellow] {escape(path)}: {escape(why)}")


def _nothing_read(paths: list[Path], skipped: list[tuple[str, str]]) -> NoReturn:
    if not skipped:
        fail(f"no transcripts (*.jsonl) found in {', '.join(str(p) for p in paths)}")
    path, why = skipped[0]
    more = f" (+{len(skipped) - 1} more unreadable)" if len(skipped) > 1 else ""
    fail(f"no readable transcript; {path}: {why}{more}")


def print_variant_stats(console: Console, name: str, figures: dict[str, Any]) -> None:
    console.rule(f"[bold]{escape(name)}[/bold] · {plural(figures['games'], 'game')}")
    if figures.get("pooling_warning"):
        warn(console, figures["pooling_warning"])
    if figures.get("duplicates"):
        console.print(f"duplicate copies of a game (counted once): {figures['duplicates']}")
    if figures["unfinished"]:
        console.print(f"unfinished (left out): {figures['unfinished']}")
    if figures["rated"] < figures["games"]:
        left_out = figures["games"] - figures["rated"]
        console.print(f"aborted (left out of the rates; --include-aborted): {left_out}")
    console.print("reasons: " + ", ".join(f"{k} {v}" for k, v in figures["reasons"].items()))
    table = Table("role", "seats", "win", "lose", "draw")
    for role, results in figures["roles"].items():
        cells = [_rate(results[r]) for r in ("win", "lose", "draw")]
        table.add_row(role, str(results["win"]["seats"]), *cells)
    console.print(table)
    _print_by_contestant(console, figures.get("by_contestant") or {})
    fallbacks = ", ".join(f"{k} {v}" for k, v in figures["fallbacks"].items()) or "none"
    console.print(f"fallbacks (seat kind/reason): {fallbacks}")
    console.print(
        f"repairs {figures['repairs']} · calls {figures['calls']} · tokens "
        f"{figures['tokens_in']}/{figures['tokens_out']}{_reasoning(figures)}"
        f" · cost ${figures['cost']:.4f}"
        f" · latency {latency_text(figures['latency_s'])}"
    )


def _print_by_contestant(console: Console, figures: dict[str, Any]) -> None:
    """Win rate per contestant (a study's name, else the model or agent kind) and side."""
    sides = sorted({side for cells in figures.values() for side in cells})
    table = Table("contestant / model", *sides, title="win rate by contestant (95% Wilson)")
    for who, cells in figures.items():
        row = [_contestant_cell(cells.get(side)) for side in sides]
        table.add_row(escape(who), *row)
    console.print(table)


def _contestant_cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "-"
    return f"{_rate(cell)} ({cell['wins']}/{cell['games']})"


def print_belief_stats(console: Console, figures: dict[str, Any]) -> None:
    """The belief-probe figures of one variant: overall, then split three ways."""
    if not figures["probes"]:
        dropped = f" ({figures['dropped']} dropped)" if figures["dropped"] else ""
        console.print(f"beliefs: no belief probes found{dropped}")
        return
    guesses = plural(figures["guesses"], "guess", "guesses")
    console.print(
        f"beliefs: {plural(figures['probes'], 'probe')} in "
        f"{plural(figures['transcripts'], 'transcript')} · dropped {figures['dropped']} · "
        f"{guesses}, unknown {_share(figures['unknown_share'])}"
    )
    overall = figures["accuracy"]
    console.print(f"belief accuracy (right/committed guesses): {_accuracy(overall)}")
    for title, split in BELIEF_SPLITS:
        table = Table(title, "accuracy", "right/committed", "unknown")
        for group, cell in figures[split].items():
            right = f"{cell['right']}/{cell['committed']}"
            table.add_row(group, _share(cell["rate"]), right, str(cell["unknown"]))
        console.print(table)


BELIEF_SPLITS = (
    ("guessing seat's role", "by_guesser"),
    ("target's true side", "by_target"),
    ("day", "by_day"),
)


def _accuracy(cell: dict[str, Any]) -> str:
    text = f"{_share(cell['rate'])} ({cell['right']}/{cell['committed']})"
    if cell.get("ci95"):
        low, high = cell["ci95"]
        text += f", 95% CI [{low:.0%}–{high:.0%}]"
    return text


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """'1 game', '2 games' (or ``many`` when the plural is not ``noun`` + s)."""
    return f"{count} {noun}" if count == 1 else f"{count} {many or noun + 's'}"


def latency_text(latency: dict[str, float] | None) -> str:
    """'mean 0.08 s · p50 0.01 s · …' from the stats figures; '-' without calls."""
    if not latency:
        return "-"
    return " · ".join(f"{name} {seconds:.2f} s" for name, seconds in latency.items())


def _rate(cell: dict[str, Any]) -> str:
    low, high = cell["ci95"]
    return f"{cell['rate']:.0%} [{low:.0%}–{high:.0%}]"


def _reasoning(figures: dict[str, Any]) -> str:
    """Of the output tokens, those spent reasoning (shown only when there were some)."""
    spent = int(figures.get("reasoning_tokens") or 0)
    return f" (reasoning {spent})" if spent else ""
