"""The commands of a model-vs-model study: ``study`` (play it, resumable, then
its leaderboard), ``export`` (its tables as CSV or Parquet) and ``report`` (one
HTML page of ratings, win rates, metrics and cost)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.analysis.deception import deception_rows
from sandbox.analysis.export import ExportError, export
from sandbox.analysis.intervals import BOOTSTRAP_SEED
from sandbox.analysis.load import Loaded, load_games
from sandbox.analysis.summary import summarise_games
from sandbox.batch.backends import backend_notes
from sandbox.batch.jobs import BatchResult, GameResult
from sandbox.batch.policy import Capacity
from sandbox.cli.batch import EstimateOption, policy_of, show_estimate, started_backend
from sandbox.cli.errors import bad_input_is_one_line, fail, stopped_by_fault
from sandbox.cli.interrupts import EXIT_INTERRUPTED
from sandbox.cli.options import (
    AddressOption,
    BackendOption,
    GamesInFlightOption,
    JsonOption,
    LimitOption,
    RpmOption,
    TranscriptsOption,
)
from sandbox.cli.progress import progress_bar
from sandbox.cli.validity import print_detectability, print_minimafia, print_validity, warn
from sandbox.report.ablation import find_ablation
from sandbox.report.page import leaderboard_rows, side_rows, write_report
from sandbox.study.run import (
    Plan,
    job_for,
    plan_run,
    planned_games,
    provider_of,
    run_study,
    study_specs,
)
from sandbox.study.spec import Study, load_study
from sandbox.transcript import EventRow, Transcript, folder_lock

# ------------------------------------------------------------------- study


def study_cmd(
    study_file: Annotated[Path, typer.Argument(help="experiment file (TOML), see docs/studies.md")],
    as_json: JsonOption = False,
    quiet: Annotated[bool, typer.Option(help="no progress bar")] = False,
    jobs: Annotated[
        int | None, typer.Option(min=0, help="worker processes (default: the file's 'jobs')")
    ] = None,
    backend: BackendOption = "local",
    address: AddressOption = None,
    transcripts: TranscriptsOption = "send",
    limit: LimitOption = None,
    rpm: RpmOption = None,
    games_in_flight: GamesInFlightOption = None,
    out: Annotated[
        Path | None, typer.Option(help="transcript folder (default: the study file's 'out')")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option(help="check the files and print the plan; play nothing")
    ] = False,
    estimate_only: EstimateOption = False,
) -> None:
    """Play a model-vs-model study (resumable), then print ratings, win rates and metrics."""
    err = Console(stderr=True, highlight=False)
    with contextlib.ExitStack() as held:  # the folder's lock, to the end
        with bad_input_is_one_line():
            study = load_study(study_file)
            if jobs is not None:
                study = _with_jobs(study, jobs)
            if out is not None:
                study = _with_out(study, out)
            if not (dry_run or estimate_only):  # reading needs no lock, nor a folder
                held.enter_context(folder_lock(study.out()))  # one study run per folder
            planned = plan_run(study)
        at_once = policy_of(study_specs(study), study.file.jobs, games_in_flight, backend)
        if dry_run:
            _print_plan(study, planned, as_json)
            return
        if estimate_only:  # cost before spending: the whole plan, from a sample on the fake
            every = [job_for(study, game, study.out()) for game in planned_games(study)]
            show_estimate(every, planned.total, games_at_once(study, at_once), as_json)
            return
        if planned.done and not as_json:
            err.print(f"{len(planned.done)} of {planned.total} games already played; skipping them")
        if planned.resuming and not as_json:
            err.print(f"finishing {planned.resuming} interrupted game(s) from their transcripts")
        # the study's cost cap and provider limits hold on any backend (its driver)
        players = started_backend(backend, at_once, address, transcripts, limit, rpm)
        show = bool(planned.todo) and not (as_json or quiet)
        with _progress(err, len(planned.todo), show=show) as on_result:
            result = run_study(study, planned, on_result, players)
        players.close()
        for line in backend_notes(players):
            err.print(escape(line))
        loaded = study_games(study.out(), study.name)
        summary = summarise(loaded)
        obj = study_json(study.name, str(study.out()), planned.total, result, loaded, summary)
        if as_json:
            sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        else:
            print_summary(_wide_console(), summary)
            done = f"{obj['finished']} of {planned.total} games finished"
            print(f"{done}; transcripts in {study.out()}")
        if result.fault is not None:
            stopped_by_fault(result.fault, obj["finished"], planned.total)
        if result.stopped and not as_json:
            err.print(f"stopped scheduling: {result.stopped}")
        if result.interrupted:
            err.print("interrupted: run the same command again to finish the study")
            raise typer.Exit(EXIT_INTERRUPTED)
        if result.failed:
            for failed in result.failed:
                err.print(f"failed {escape(failed.key)}: {escape(failed.error or '')}")
            raise typer.Exit(1)


def _print_plan(study: Study, planned: Plan, as_json: bool) -> None:
    """``--dry-run``: what a run would do, from the files alone."""
    obj = {
        "study": study.name,
        "out": str(study.out()),
        "contestants": study.names,
        "planned": planned.total,
        "already_played": len(planned.done),
        "to_resume": planned.resuming,
        "to_play": len(planned.todo) - planned.resuming,
    }
    if as_json:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
        return
    print(f"ok: {study.source}")
    print(f"contestants: {', '.join(study.names)}; transcripts in {obj['out']}")
    print(
        f"{obj['planned']} games planned: {obj['already_played']} already played, "
        f"{obj['to_resume']} to finish, {obj['to_play']} to play"
    )


def games_at_once(study: Study, at_once: Capacity) -> int:
    """Games the study plays at once: workers × games in flight, under its
    provider limits (games in flight per provider)."""
    limits = [n for p, n in study.file.provider_limits.items() if p in provider_names(study)]
    return min([max(1, at_once.workers) * at_once.in_flight, *limits])


def provider_names(study: Study) -> set[str]:
    return {p for spec in study.specs.values() if (p := provider_of(spec))}


def _with_jobs(study: Study, jobs: int) -> Study:
    return dataclasses.replace(study, file=study.file.model_copy(update={"jobs": jobs}))


def _with_out(study: Study, out: Path) -> Study:
    if out.exists() and not out.is_dir():
        fail(f"--out must be a folder; {out} is a file")
    # absolute: the file's own 'out' is read relative to the study file
    return dataclasses.replace(
        study, file=study.file.model_copy(update={"out": str(out.resolve())})
    )


def study_games(out: Path, name: str) -> Loaded:
    """The games of study ``name`` in its folder (other files there are ignored)."""
    loaded = load_games([out])

    def mine(games: list[Transcript[EventRow]]) -> list[Transcript[EventRow]]:
        return [g for g in games if g.study.get("name") == name]

    return Loaded(mine(loaded.games), mine(loaded.unfinished), loaded.duplicates, loaded.skipped)


def summarise(loaded: Loaded) -> dict[str, Any]:
    return summarise_games(loaded, BOOTSTRAP_SEED)


def study_json(
    name: str,
    out: str,
    total: int,
    result: BatchResult,
    loaded: Loaded,
    summary: dict[str, Any],
) -> dict[str, Any]:
    return {
        "study": name,
        "out": out,
        "planned": total,
        "finished": len(loaded.games),
        "played_now": sum(1 for r in result.finished if not r.resumed),
        "resumed_now": sum(1 for r in result.finished if r.resumed),
        "already_played": len(result.skipped),
        "failed": [r.to_json() for r in result.failed],
        "interrupted": result.interrupted,
        "stopped": result.stopped,
        "cost": round(sum(u["cost"] for u in summary["usage"].values()), 6),
        "ratings": summary["ratings"],
        "ratings_by_role": summary["ratings_by_role"],
        "nash": summary["nash"],
        "rule_failures": summary["rule_failures"],
        "ratings_without_failures": summary["ratings_without_failures"],
        "frontier": summary["frontier"],
        "win_rates": summary["win_rates"],
        "head_to_head": summary["head_to_head"],
        "metrics": summary["metrics"],
        "usage": summary["usage"],
        "beliefs": summary["beliefs"],
        "persuasion": summary["persuasion"],
        "speech_persuasion": summary["speech_persuasion"],
        "lies": summary["lies"],
        "deception": summary["deception"],
        "validity": summary["validity"],
        "minimafia": summary["minimafia"],
        "detectability": summary["detectability"],
        "setups": summary["setups"],
        "pooling_warning": summary["pooling_warning"],
    }


@contextmanager
def _progress(err: Console, total: int, show: bool) -> Iterator[Callable[[GameResult], None]]:
    """Games done / N, time left, and the cost so far."""
    spent = [0.0]
    with progress_bar(err, "games · $0.0000", total, show, eta=True) as bar:

        def on_result(result: GameResult) -> None:
            spent[0] += result.cost
            if result.error is not None:
                bar.note(f"game {escape(result.key)} failed: {escape(result.error)}")
            bar.advance(f"games · ${spent[0]:.4f}")

        yield on_result


# Rows of the leaderboard are about 100 characters wide; when stdout is a file
# or a pipe (no terminal width to follow) they are printed whole, not wrapped.
PRINT_WIDTH = 110


def _wide_console() -> Console:
    return Console(highlight=False, width=None if sys.stdout.isatty() else PRINT_WIDTH)


def print_summary(console: Console, summary: dict[str, Any]) -> None:
    if summary.get("pooling_warning"):
        warn(console, summary["pooling_warning"])
    separated = (summary.get("validity") or {}).get("separation") or {}
    if separated.get("warning"):
        warn(console, separated["warning"])
    table = Table(
        "contestant",
        "games",
        "Elo [95% CI]",
        "OpenSkill μ [95% CI]",
        "Nash [95% CI]",
        "win rate",
        title="leaderboard",
    )
    for who, games, elo, elo_ci, mu, mu_ci, _, nash, nash_ci, wins in leaderboard_rows(summary):
        nash_text = "–" if nash == "–" else f"{nash} {nash_ci}"
        table.add_row(
            escape(who), games, f"{elo} {elo_ci}", f"{mu} {mu_ci}", nash_text, escape(wins)
        )
    console.print(table)
    head, rows = side_rows(summary)
    sides = Table(*head, title="win rate by side (95% Wilson)")
    for row in rows:
        sides.add_row(*(escape(c) for c in row))
    console.print(sides)
    deceit = deception_rows(summary)
    if deceit:
        if summary["deception"].get("warning"):  # ratings of two components do not compare
            warn(console, summary["deception"]["warning"])
        rho = summary["deception"]["rank_correlation"]
        title = (
            f"deceive and detect (Elo [95% CI] (duels); Spearman ρ {rho['spearman']} {rho['ci95']})"
        )
        table = Table("contestant", "deceive", "detect", title=title)
        for row in deceit:
            table.add_row(*(escape(c) for c in row))
        console.print(table)
    # after the leaderboard and sides tables, whose layout readers parse
    print_validity(console, summary.get("validity") or {})
    print_minimafia(console, summary.get("minimafia"))
    print_detectability(console, summary.get("detectability"))


# ------------------------------------------------------------------ export


def export_cmd(
    folder: Annotated[list[Path], typer.Argument(help="transcript files or folders")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="csv or parquet (the tables); trajectories (JSONL) or trajectories-parquet "
            "(training data: a row per decision and per game)",
        ),
    ] = "csv",
    out: Annotated[
        Path | None, typer.Option(help="output folder (default: <first>/export)")
    ] = None,
) -> None:
    """Write the games, seats, decisions, calls and beliefs tables (one row per item),
    or the training data (--format trajectories, docs/frameworks.md)."""
    loaded = _read(folder)
    target = out or ((folder[0] if folder[0].is_dir() else folder[0].parent) / "export")
    try:
        written = export(loaded.games, target, fmt)
    except ExportError as err:
        fail(str(err))
    for path in written:
        print(path)


def _read(paths: list[Path]) -> Loaded:
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"{missing[0]}: no such file or folder")
    loaded = load_games(paths)
    if not loaded.games:
        why = f"; {loaded.skipped[0][0]}: {loaded.skipped[0][1]}" if loaded.skipped else ""
        fail(f"no finished transcript in {', '.join(str(p) for p in paths)}{why}")
    return loaded


# ------------------------------------------------------------------ report


def report_cmd(
    folder: Annotated[list[Path], typer.Argument(help="transcript files or folders")],
    out: Annotated[Path, typer.Option(help="the HTML page to write")] = Path("report.html"),
    title: Annotated[str | None, typer.Option(help="page title")] = None,
) -> None:
    """One self-contained HTML page (plus .md and .leaderboard.csv): ratings, win rates,
    head-to-head, metrics and cost."""
    loaded = _read(folder)
    summary = summarise(loaded)
    summary["ablation"] = find_ablation(folder)  # `sandbox ablate`'s results, if any
    names = sorted({str(g.study.get("name")) for g in loaded.games if g.study})
    heading = title or ("study " + ", ".join(names) if names else f"{folder[0]}")
    for path in write_report(summary, out, heading):
        print(path)
